package symbolic

import (
	"math/big"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"strconv"
	"strings"
)

// formText writes an atom as the language would: the path as the
// policies read it, the operator and the constant.
func formText(f *form) string {
	switch f.op {
	case fFree:
		if f.pathEq != "" {
			return f.left.gen + " " + f.pathEq + " " + f.right.gen
		}
		return strings.TrimPrefix(f.key, "CronSpan:")
	case fBoolPath:
		return f.path.gen
	case fCmp:
		left := ""
		switch f.left.kind {
		case tPath:
			left = f.left.gen
		case tCount:
			left = f.left.list.path.gen
			if len(f.left.list.filters) > 0 {
				left += ".filter(...)"
			}
			left += ".count()"
		}
		return left + " " + f.cmp + " " + termText(f.right)
	case fAny, fAll:
		list := f.list.path.gen
		if len(f.list.filters) > 0 {
			list += ".filter(...)"
		}
		// x.contains(c) and c in x read as one element equal to c.
		if b := f.body; f.op == fAny && b != nil && b.op == fCmp && b.cmp == "==" && b.left.kind == tPath && b.left.path == f.bind {
			return list + " contains " + termText(b.right)
		}
		if f.op == fAny {
			return list + ".any(...)"
		}
		return list + ".all(...)"
	}
	return ""
}

func termText(t *term) string {
	switch t.kind {
	case tConst:
		switch v := t.val.(type) {
		case string:
			return "'" + v + "'"
		case *big.Int:
			if t.typ != nil && t.typ.Kind == policylang.KindTimestamp {
				return "Timestamp('" + nanosTime(v).Format(time.RFC3339Nano) + "')"
			}
			return v.String()
		case bool:
			return strconv.FormatBool(v)
		}
	case tList:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			parts[i] = termText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "…"
}
