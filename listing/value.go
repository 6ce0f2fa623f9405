package listing

import (
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string { return kindNames[k] }

// Value is one JSON value kept as written: objects keep their members in source order (duplicates
// included), numbers keep their literal spelling. Values are treated as immutable once parsed;
// edits build new values along the edited path and share the rest.
type Value struct {
	Kind Kind
	// Str holds a string's decoded text, or a number's literal as written (including the
	// non-standard NaN, Infinity and -Infinity that Python's json module accepts).
	Str     string
	Bool    bool
	Items   []*Value // Array elements.
	Members []Member // Object members in source order.
	// Pos is the byte offset of the value in the source it was parsed from, or -1.
	Pos int
	// dupKeys reports that Members repeats a key; lookups then take the last one.
	dupKeys bool
}

// Member is one key and value of an object.
type Member struct {
	Key    string
	Value  *Value
	KeyPos int // byte offset of the key's opening quote, or -1
}

// NewString returns a string value with no source position.
func NewString(s string) *Value { return &Value{Kind: String, Str: s, Pos: -1} }

// NewBool returns a boolean value with no source position.
func NewBool(b bool) *Value { return &Value{Kind: Bool, Bool: b, Pos: -1} }

// NewNull returns null with no source position.
func NewNull() *Value { return &Value{Kind: Null, Pos: -1} }

// NewNumber returns a number value from its literal; the literal is not checked.
func NewNumber(literal string) *Value { return &Value{Kind: Number, Str: literal, Pos: -1} }

// NewInt returns an integer number value.
func NewInt(n int) *Value { return NewNumber(strconv.Itoa(n)) }

// NewArray returns an array value holding items.
func NewArray(items ...*Value) *Value { return &Value{Kind: Array, Items: items, Pos: -1} }

// NewObject returns an object value holding members in the given order.
func NewObject(members ...Member) *Value {
	v := &Value{Kind: Object, Members: members, Pos: -1}
	v.dupKeys = hasDuplicateKeys(members)
	return v
}

func hasDuplicateKeys(members []Member) bool {
	if len(members) < 2 {
		return false
	}
	if len(members) < 9 {
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				if members[i].Key == members[j].Key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(members))
	for _, m := range members {
		if _, ok := seen[m.Key]; ok {
			return true
		}
		seen[m.Key] = struct{}{}
	}
	return false
}

// Get returns the value of key in an object, the last one when the key repeats (as every common
// JSON decoder does), or nil when v is not an object or lacks the key.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether an object has key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Fields returns an object's members as a decoder that keeps insertion order sees them: each key
// once, at the place it first appeared, with the value it had last. Without repeated keys this is
// Members itself.
func (v *Value) Fields() []Member {
	if v == nil || v.Kind != Object {
		return nil
	}
	if !v.dupKeys {
		return v.Members
	}
	out := make([]Member, 0, len(v.Members))
	at := make(map[string]int, len(v.Members))
	for _, m := range v.Members {
		if i, ok := at[m.Key]; ok {
			out[i].Value = m.Value
			continue
		}
		at[m.Key] = len(out)
		out = append(out, m)
	}
	return out
}

// String returns the text of a string value and "" for any other kind.
func (v *Value) String() string {
	if v == nil || v.Kind != String {
		return ""
	}
	return v.Str
}

// IsString reports whether v is a string.
func (v *Value) IsString() bool { return v != nil && v.Kind == String }

// IsObject reports whether v is an object.
func (v *Value) IsObject() bool { return v != nil && v.Kind == Object }

// Truthy reports what Python's bool() says of the decoded value: false for null, false, zero,
// and empty strings, arrays and objects.
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case Null:
		return false
	case Bool:
		return v.Bool
	case Number:
		return !isZeroLiteral(v.Str)
	case String:
		return v.Str != ""
	case Array:
		return len(v.Items) > 0
	default:
		return len(v.Members) > 0
	}
}

// isZeroLiteral reports whether a JSON number literal denotes zero (0, -0, 0.0, 0e5, 1e-400 …).
func isZeroLiteral(lit string) bool {
	if lit == "NaN" || strings.HasSuffix(lit, "Infinity") {
		return false
	}
	mant := lit
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
	}
	if strings.Trim(mant, "-+0.") == "" {
		return true
	}
	// An underflow such as 1e-400 reads as zero in Python too.
	f, _ := strconv.ParseFloat(lit, 64)
	return f == 0 && strings.ContainsAny(lit, ".eE")
}

// Equal reports whether a and b are the same JSON as written: same kinds, same member order,
// same number literals.
func Equal(a, b *Value) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number, String:
		return a.Str == b.Str
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	default:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for i := range a.Members {
			if a.Members[i].Key != b.Members[i].Key || !Equal(a.Members[i].Value, b.Members[i].Value) {
				return false
			}
		}
		return true
	}
}

// Clone returns a deep copy of v without source positions.
func Clone(v *Value) *Value {
	if v == nil {
		return nil
	}
	c := &Value{Kind: v.Kind, Str: v.Str, Bool: v.Bool, Pos: -1, dupKeys: v.dupKeys}
	if v.Items != nil {
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = Clone(it)
		}
	}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: Clone(m.Value), KeyPos: -1}
		}
	}
	return c
}

// MarshalJSON writes v as written.
func (v *Value) MarshalJSON() ([]byte, error) { return Marshal(v, ""), nil }

// UnmarshalJSON reads v from JSON text, keeping member order and number spelling.
func (v *Value) UnmarshalJSON(b []byte) error {
	p, err := ParseJSON(b)
	if err != nil {
		return err
	}
	*v = *p
	return nil
}
