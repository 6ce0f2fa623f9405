package selection

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tool-workbench/workbench/schema"
)

// TaskFileSchema is the JSON Schema (2020-12) of a task file in the workbench's extended
// format. It is published as selection/taskfile.schema.json, for editors and other tools.
//
//go:embed taskfile.schema.json
var TaskFileSchema []byte

// TaskFileSchemaID is the schema's $id.
const TaskFileSchemaID = "urn:tool-workbench:schema:taskfile:1"

var taskSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(TaskFileSchema))
	if err != nil {
		return nil, fmt.Errorf("reading the embedded task file schema: %w", err)
	}
	s, err := schema.CompileTrusted(TaskFileSchemaID, doc)
	if err != nil {
		return nil, fmt.Errorf("the embedded task file schema: %w", err)
	}
	return s, nil
})

// ValidateTaskFile checks a task file against TaskFileSchema. ParseTasks (not strict) applies
// the same rules with messages that name the task, plus one a schema cannot say (ids are
// unique); this is for tools that want the schema's verdict itself.
func ValidateTaskFile(src []byte) error {
	s, err := taskSchema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return fmt.Errorf("the task file is not JSON: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("the task file does not match its schema: %w", err)
	}
	return nil
}
