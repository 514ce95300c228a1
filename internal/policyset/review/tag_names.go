package review

import (
	"regexp"
	"strconv"
)

// keyTagAtom is a region's words about a private key tag, by id, as the
// analysis states them ("private_key.tags contains 'a1b2…'").
var keyTagAtom = regexp.MustCompile(`private_key\.tags contains '([^']*)'`)

// WithTagNames names, in each row's words and region, the private key
// tags the organization has (names: id to name, from the command's
// list_private_key_tags): an id alone says nothing to a reviewer. The
// witness keeps the ids, which is what policy_decision reads; ids not in
// names are left as they are.
func (r Report) WithTagNames(names map[string]string) Report {
	if len(names) == 0 {
		return r
	}
	name := func(s string) string {
		return keyTagAtom.ReplaceAllStringFunc(s, func(atom string) string {
			id := keyTagAtom.FindStringSubmatch(atom)[1]
			if n, ok := names[id]; ok {
				return atom + " (tag " + strconv.Quote(n) + ")"
			}
			return atom
		})
	}
	rows := make([]Row, len(r.Rows))
	for i, row := range r.Rows {
		row.Words, row.Region = name(row.Words), name(row.Region)
		rows[i] = row
	}
	r.Rows = rows
	return r
}

// NamesKeyTags tells whether some row's words name a private key tag by
// id: only then is the tag list worth reading.
func (r Report) NamesKeyTags() bool {
	for _, row := range r.Rows {
		if keyTagAtom.MatchString(row.Words) {
			return true
		}
	}
	return false
}
