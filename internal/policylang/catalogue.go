package policylang

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Field is a policy field that holds an expression; each has its keywords.
type Field string

// The fields that hold expressions.
const (
	FieldCondition Field = "condition"
	FieldConsensus Field = "consensus"
	FieldTime      Field = "time"
)

var fields = []Field{FieldCondition, FieldConsensus, FieldTime}

// ActivityInfo is what the documentation says of one activity type: its
// version-free kind, and the resource and action it acts on (each "" where
// the documentation gives none), and whether only the root quorum governs
// it.
type ActivityInfo struct {
	Type, Kind, Resource, Action string
	RootQuorumOnly               bool
}

//go:embed catalogue.txt
var catalogueText string

type catalogue struct {
	keywords   map[Field]map[string]*Type  // by field, then keyword
	keywordOf  map[string]Field            // the field each keyword belongs to
	namespaces map[string]bool             // eth, solana, time...: the first part of a dotted keyword
	structs    map[string]map[string]*Type // by struct, then field
	values     map[string][]string         // "Struct.field" → its documented values
	activities map[string]ActivityInfo     // by type
	order      []string                    // activity types in catalogue order
	families   map[string][]familyMember   // request table: families by name
	requests   map[string]*RequestModel    // request table: by activity type
}

var cat = mustLoadCatalogue(catalogueText)

func mustLoadCatalogue(text string) *catalogue {
	c, err := loadCatalogue(text)
	if err != nil {
		panic("policylang: catalogue.txt: " + err.Error())
	}
	return c
}

func loadCatalogue(text string) (*catalogue, error) {
	c := &catalogue{keywords: map[Field]map[string]*Type{}, namespaces: map[string]bool{}, structs: map[string]map[string]*Type{},
		values: map[string][]string{}, activities: map[string]ActivityInfo{}, keywordOf: map[string]Field{},
		families: map[string][]familyMember{}, requests: map[string]*RequestModel{}}
	for _, f := range fields {
		c.keywords[f] = map[string]*Type{}
	}
	for n, line := range strings.Split(text, "\n") {
		words := strings.Fields(line)
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		if err := c.addLine(words); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
	}
	return c, c.verify()
}

func (c *catalogue) addLine(words []string) error {
	switch {
	case requestLine(words[0]):
		return c.addRequestLine(words)
	case words[0] == "keyword" && len(words) == 4:
		f := Field(words[1])
		if !slices.Contains(fields, f) {
			return fmt.Errorf("unknown field %q", f)
		}
		t, err := parseType(words[3])
		if err != nil {
			return err
		}
		c.keywords[f][words[2]] = t
		c.keywordOf[words[2]] = f
		if ns, _, dotted := strings.Cut(words[2], "."); dotted {
			c.namespaces[ns] = true
		}
	case words[0] == "field" && len(words) == 3:
		st, name, ok := strings.Cut(words[1], ".")
		if !ok {
			return fmt.Errorf("field %q is not Struct.name", words[1])
		}
		t, err := parseType(words[2])
		if err != nil {
			return err
		}
		if c.structs[st] == nil {
			c.structs[st] = map[string]*Type{}
		}
		c.structs[st][name] = t
	case words[0] == "values" && len(words) >= 3:
		for _, v := range words[2:] {
			if v == "''" {
				v = ""
			}
			c.values[words[1]] = append(c.values[words[1]], v)
		}
	case words[0] == "activity" && len(words) == 5:
		dash := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		c.activities[words[1]] = ActivityInfo{Type: words[1], Kind: dash(words[2]), Resource: dash(words[3]), Action: dash(words[4])}
		c.order = append(c.order, words[1])
	case words[0] == "rootquorum" && len(words) == 2:
		a, ok := c.activities[words[1]]
		if !ok {
			return fmt.Errorf("rootquorum %s: no such activity line above", words[1])
		}
		a.RootQuorumOnly = true
		c.activities[words[1]] = a
	default:
		return fmt.Errorf("cannot read %q", strings.Join(words, " "))
	}
	return nil
}

// verify checks that every struct a type names is catalogued, and derives
// the value sets of Activity.type and Activity.kind from the activities.
func (c *catalogue) verify() error {
	var check func(t *Type, where string) error
	check = func(t *Type, where string) error {
		switch t.Kind {
		case KindList, KindMap:
			return check(t.Elem, where)
		case KindStruct:
			if c.structs[t.Struct] == nil {
				return fmt.Errorf("%s names struct %s, which has no fields", where, t.Struct)
			}
		}
		return nil
	}
	for f, kws := range c.keywords {
		for name, t := range kws {
			if err := check(t, fmt.Sprintf("keyword %s %s", f, name)); err != nil {
				return err
			}
		}
	}
	for st, fs := range c.structs {
		for name, t := range fs {
			if err := check(t, st+"."+name); err != nil {
				return err
			}
		}
	}
	for key := range c.values {
		st, name, _ := strings.Cut(key, ".")
		if t := c.structs[st][name]; t == nil || t.Kind != KindString {
			return fmt.Errorf("values %s: not a string field", key)
		}
	}
	kinds := []string{}
	for _, typ := range c.order {
		c.values["Activity.type"] = append(c.values["Activity.type"], typ)
		if k := c.activities[typ].Kind; k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	c.values["Activity.kind"] = kinds
	return nil
}

// LookupActivity gives what the documentation says of an activity type.
func LookupActivity(typ string) (ActivityInfo, bool) {
	a, ok := cat.activities[typ]
	return a, ok
}

// keywordField is the field a keyword belongs to, if any.
func keywordField(name string) (Field, bool) {
	f, ok := cat.keywordOf[name]
	return f, ok
}

// keywordsOf lists the keywords of a field, sorted.
func keywordsOf(f Field) []string { return slices.Sorted(maps.Keys(cat.keywords[f])) }

// ClosestActivityType is the catalogued activity type the user most
// likely meant by typ, by Closest's rule, or "" when none is likely. Of
// types equally close, the later in the catalogue (the newer version) wins.
func ClosestActivityType(typ string) string {
	newestFirst := slices.Clone(cat.order)
	slices.Reverse(newestFirst)
	return Closest(typ, newestFirst)
}

// ActivityTypes lists the catalogued activity types in catalogue order, a
// copy: the access review samples requests per type.
func ActivityTypes() []string { return slices.Clone(cat.order) }

// DocumentedValues lists the documented values of a string field, named
// "Struct.field" (Credential.type, ActivityParams.encoding, ...), in
// catalogue order, a copy; nil when the catalogue documents none.
func DocumentedValues(structField string) []string { return slices.Clone(cat.values[structField]) }
