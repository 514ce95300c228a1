package symbolic

import (
	"strconv"
	"strings"
)

// canErr tells whether a quantifier's body may raise an error for some
// element: it reads something beyond the bound element's own fields (a
// keyword the request may lack, a slice past a string's end) or
// over-approximates. Elements' fields are always present.
func canErr(f *form) bool {
	if f == nil {
		return false
	}
	switch f.op {
	case fFree, fErr:
		return true
	case fBoolPath:
		return termCanErr(f.path)
	case fCmp:
		if termCanErr(f.left) {
			return true
		}
		if f.right != nil && f.right.kind != tConst && f.right.kind != tList {
			return true
		}
	case fAny, fAll:
		if termCanErr(f.list.path) || canErr(f.body) {
			return true
		}
		for _, flt := range f.list.filters {
			if canErr(flt.body) {
				return true
			}
		}
	}
	for _, a := range f.args {
		if canErr(a) {
			return true
		}
	}
	return false
}

func termCanErr(t *term) bool {
	switch t.kind {
	case tConst, tList:
		return false
	case tCount, tListRef:
		return termCanErr(t.list.path) || func() bool {
			for _, flt := range t.list.filters {
				if canErr(flt.body) {
					return true
				}
			}
			return false
		}()
	case tPath:
		return !strings.HasPrefix(t.path, "$") || t.slice != nil || len(t.reads) > 0 || strings.Contains(t.path, "['")
	}
	return true
}

// formKey is a form's text with its variables numbered by depth, so that
// one quantifier written in two policies has one key.
func formKey(f *form) string {
	var b strings.Builder
	names := map[string]string{}
	writeForm(&b, f, names)
	return b.String()
}

func writeForm(b *strings.Builder, f *form, names map[string]string) {
	if f == nil {
		b.WriteString("nil")
		return
	}
	b.WriteString(strconv.Itoa(int(f.op)))
	b.WriteByte('(')
	switch f.op {
	case fConst:
		b.WriteString(strconv.FormatBool(f.val))
	case fBoolPath:
		writeTerm(b, f.path, names)
	case fCmp:
		writeTerm(b, f.left, names)
		b.WriteString(f.cmp)
		if f.right != nil {
			writeTerm(b, f.right, names)
		}
	case fAny, fAll:
		writeList(b, f.list, names)
		names[f.bind] = "$" + strconv.Itoa(len(names))
		b.WriteString(names[f.bind])
		writeForm(b, f.body, names)
	case fFree:
		b.WriteString(f.key)
	}
	for _, a := range f.args {
		writeForm(b, a, names)
	}
	b.WriteByte(')')
}

func writeList(b *strings.Builder, l *listRef, names map[string]string) {
	writeTerm(b, l.path, names)
	for _, flt := range l.filters {
		names[flt.bind] = "$" + strconv.Itoa(len(names))
		b.WriteString("|" + names[flt.bind])
		writeForm(b, flt.body, names)
	}
}

func writeTerm(b *strings.Builder, t *term, names map[string]string) {
	switch t.kind {
	case tPath:
		p := t.path
		if strings.HasPrefix(p, "$") {
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			p = names[p[:end]] + p[end:]
		}
		b.WriteString(p)
	case tConst, tList:
		b.WriteString(termText(t))
	case tCount, tListRef:
		writeList(b, t.list, names)
		b.WriteString(".count")
	default:
		b.WriteString(t.why)
	}
}
