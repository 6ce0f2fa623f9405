// Package goinstall holds one test, which runs `go install
// github.com/tool-workbench/workbench/cmd/workbench@VERSION` from a clean module cache and asks
// the installed binary its version. It has no code of its own: it is a package apart from
// cmd/workbench so that `go test ./...` runs it beside that package's long suite, with a
// timeout of its own, rather than after it.
package goinstall
