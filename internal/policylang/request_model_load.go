package policylang

import (
	"fmt"
	"slices"
	"strings"
)

// Reading the request table's lines of catalogue.txt into RequestModels.

// familyMember is an activity type of a family; inferred when its
// membership is our reading, which makes every line applied to it through
// the family an inference.
type familyMember struct {
	typ      string
	inferred bool
}

// requestLine reports whether words[0] is one of the request table's kinds.
func requestLine(kind string) bool {
	return slices.Contains([]string{"family", "params", "carries", "atmostone", "atleastone", "together"}, kind)
}

// addRequestLine reads one line of the request table. A trailing
// "inferred" marks the line as our reading.
func (c *catalogue) addRequestLine(words []string) error {
	inferred := len(words) > 2 && words[len(words)-1] == "inferred"
	if inferred {
		words = words[:len(words)-1]
	}
	if len(words) < 3 {
		return fmt.Errorf("%s needs a scope and at least one more word", words[0])
	}
	if words[0] == "family" {
		if strings.HasPrefix(words[1], "ACTIVITY_TYPE_") {
			return fmt.Errorf("family %s: a family's name is not an activity type", words[1])
		}
		for _, t := range words[2:] {
			if _, ok := c.activities[t]; !ok {
				return fmt.Errorf("family %s: unknown activity type %s", words[1], t)
			}
			c.families[words[1]] = append(c.families[words[1]], familyMember{typ: t, inferred: inferred})
		}
		return nil
	}
	members, err := c.scope(words[1])
	if err != nil {
		return err
	}
	for _, mem := range members {
		m := c.requests[mem.typ]
		if m == nil {
			m = &RequestModel{Type: mem.typ, Keywords: map[string]KeywordRule{}}
			c.requests[mem.typ] = m
		}
		if err := c.applyRequestLine(m, words, inferred || mem.inferred); err != nil {
			return fmt.Errorf("%s: %w", mem.typ, err)
		}
	}
	return nil
}

// scope is the activity types a line names: one type, or a family.
func (c *catalogue) scope(name string) ([]familyMember, error) {
	if strings.HasPrefix(name, "ACTIVITY_TYPE_") {
		if _, ok := c.activities[name]; !ok {
			return nil, fmt.Errorf("unknown activity type %s", name)
		}
		return []familyMember{{typ: name}}, nil
	}
	if f := c.families[name]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%s is neither an activity type nor a family defined above", name)
}

func (c *catalogue) applyRequestLine(m *RequestModel, words []string, inferred bool) error {
	switch words[0] {
	case "params":
		if m.Params != nil {
			return fmt.Errorf("params given twice")
		}
		for _, p := range words[2:] {
			if c.structs["ActivityParams"][p] == nil {
				return fmt.Errorf("params: ActivityParams has no field %s", p)
			}
		}
		m.Params, m.ParamsInferred = slices.Sorted(slices.Values(words[2:])), inferred
	case "carries":
		return c.applyCarries(m, words, inferred)
	default: // atmostone, atleastone, together
		if len(words) < 4 {
			return fmt.Errorf("%s needs at least two keywords", words[0])
		}
		for _, k := range words[2:] {
			if !c.requestKeyword(k) {
				return fmt.Errorf("%s: %s is not a condition keyword a request carries", words[0], k)
			}
			if m.Keywords[k].Presence == Never {
				return fmt.Errorf("%s: %s is never carried (no carries line above names it)", words[0], k)
			}
		}
		g := KeywordGroup{Keywords: slices.Clone(words[2:]), Inferred: inferred}
		groups := map[string]*[]KeywordGroup{"atmostone": &m.AtMostOne, "atleastone": &m.AtLeastOne, "together": &m.Together}[words[0]]
		*groups = append(*groups, g)
	}
	return nil
}

// applyCarries reads "carries <scope> <keyword> always|sometimes [when <param> <value> ...]".
func (c *catalogue) applyCarries(m *RequestModel, words []string, inferred bool) error {
	if len(words) < 4 {
		return fmt.Errorf("carries needs a keyword and always or sometimes")
	}
	k := words[2]
	if !c.requestKeyword(k) {
		return fmt.Errorf("carries: %s is not a condition keyword a request carries", k)
	}
	if _, twice := m.Keywords[k]; twice {
		return fmt.Errorf("carries %s given twice", k)
	}
	r := KeywordRule{Inferred: inferred}
	switch words[3] {
	case "always":
		r.Presence = Always
	case "sometimes":
		r.Presence = Sometimes
	default:
		return fmt.Errorf("carries %s: %q is neither always nor sometimes", k, words[3])
	}
	switch rest := words[4:]; {
	case len(rest) == 0:
	case rest[0] == "when" && len(rest) >= 3:
		r.When = &Condition{Param: rest[1], Values: slices.Clone(rest[2:])}
		if !slices.Contains(m.Params, r.When.Param) {
			return fmt.Errorf("carries %s when activity.params.%s, which it does not expose (no params line above names it)", k, r.When.Param)
		}
		for _, v := range r.When.Values {
			if known := c.values["ActivityParams."+r.When.Param]; known != nil && !slices.Contains(known, v) {
				return fmt.Errorf("carries %s when activity.params.%s is %s, which is none of its values", k, r.When.Param, v)
			}
		}
	default:
		return fmt.Errorf("carries %s: after %s comes nothing, or when <param> and its values", k, words[3])
	}
	m.Keywords[k] = r
	return nil
}

// requestKeyword tells whether k is a condition keyword a request may
// carry (activity, always carried, is not one the table speaks of).
func (c *catalogue) requestKeyword(k string) bool {
	return k != "activity" && c.keywords[FieldCondition][k] != nil
}
