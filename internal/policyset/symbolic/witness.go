package symbolic

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// witness rebuilds a model as a concrete request: each scalar gets a
// value inside its class (a point's value, an interval's lower end, a
// string of "another value" that no constant of its path equals), each
// list its active elements. What no form read is left out. The request
// is only a claim until policyset.Decide agrees with it (replay). A list
// a bounded count reads is grown to the count the model says (padCounts).
func (q *question) witness(model []bool) (policyset.Request, error) {
	e := q.e
	req := policyset.Request{Type: q.typ}
	tree := map[string]any{}
	present := func(p string) bool { return modelValue(model, e.presence(p)) }
	// Lists first, so that their elements exist where scalars land.
	for _, p := range slices.Sorted(maps.Keys(e.lists)) {
		sl := e.lists[p]
		if !present(p) {
			continue
		}
		n := 0
		for _, a := range sl.active {
			if modelValue(model, a) {
				n++
			}
		}
		setPath(tree, p, make([]any, n))
	}
	strs := map[string]string{}
	equal := q.equalValues(model)
	for _, p := range e.scalarsSorted() {
		s := e.scalars[p]
		if strings.HasPrefix(p, "len(") || s.typ.Kind == policylang.KindString && strings.HasSuffix(p, "]") && strings.Contains(p[strings.LastIndexByte(p, '['):], "..") {
			continue // lengths and slices shape their base string
		}
		if !present(p) {
			continue
		}
		switch s.typ.Kind {
		case policylang.KindBool:
			setPath(tree, p, modelValue(model, s.boolLit))
		case policylang.KindString:
			strs[p] = q.stringValue(model, s)
			if v, ok := equal[p]; ok {
				strs[p] = v
			}
			setPath(tree, p, strs[p])
		default:
			cl := s.ints[classOf(model, s.classes)]
			if s.typ.Kind == policylang.KindTimestamp {
				req.Now = nanosTime(cl.lo)
				if s.cut != nil {
					req.Now = nanosTime(s.cut.at[classOf(model, s.classes)])
				}
				continue
			}
			setPath(tree, p, new(big.Int).Set(pick(cl)))
		}
	}
	fillOthers(tree, "")
	if err := q.padCounts(model, tree); err != nil {
		return req, err
	}
	return q.build(req, tree)
}

// pick is a value of an integer class: its lower end, or 0 where the
// class spans it.
func pick(cl intClass) *big.Int {
	if cl.lo.Sign() <= 0 && cl.hi.Sign() >= 0 {
		return new(big.Int)
	}
	if cl.lo.Sign() < 0 {
		return cl.hi
	}
	return cl.lo
}

func classOf(model []bool, classes []lit) int {
	for i, l := range classes {
		if modelValue(model, l) {
			return i
		}
	}
	return len(classes) - 1
}

// stringValue is a string of the model: its constant; a sliced string
// spelled from its segments at the model's length; or a value no
// constant of its path is.
func (q *question) stringValue(model []bool, s *scalar) string {
	k := classOf(model, s.classes)
	if k < len(s.strs)-1 {
		return s.strs[k]
	}
	if ls, ok := q.e.scalars[lenPath(s.path)]; ok {
		n := pick(ls.ints[classOf(model, ls.classes)]).Int64()
		if p, ok := q.e.positions[s.path]; ok {
			return p.spell(model, n)
		}
		return filler(n, s.strs) // no slice of it was read
	}
	v := "other"
	if strings.HasSuffix(s.gen, ".id") || strings.HasSuffix(s.gen, "tags[*]") {
		v = otherName(s.path)
	}
	for slices.Contains(s.strs[:len(s.strs)-1], v) {
		v += "-" + s.path
	}
	return v
}

// otherName names a value no constant names, after its place: the third
// approver is "user-2", a tag "tag-1-0".
func otherName(path string) string {
	var nums []string
	for _, part := range strings.Split(path, "[") {
		if i := strings.IndexByte(part, ']'); i > 0 {
			if _, err := strconv.Atoi(part[:i]); err == nil {
				nums = append(nums, part[:i])
			}
		}
	}
	if strings.HasPrefix(path, "approvers[") && strings.HasSuffix(path, ".id") {
		if len(nums) == 1 && nums[0] == "0" {
			return "requester"
		}
		return "approver-" + strings.Join(nums, "-")
	}
	return "other-tag-" + strings.Join(nums, "-")
}

// setPath puts v at path in the tree of maps and lists.
func setPath(tree map[string]any, path string, v any) {
	root := rootOf(path)
	rest := path[len(root):]
	var cur any = tree
	key := root
	for {
		step, next := nextStep(rest)
		if step == "" {
			assign(cur, key, v)
			return
		}
		child := get(cur, key)
		if child == nil {
			if step[0] == '[' && !strings.HasPrefix(step, "['") {
				return // an element of a list the model leaves out
			}
			child = map[string]any{}
			assign(cur, key, child)
		}
		cur, key, rest = child, step, next
	}
}

func nextStep(rest string) (step, next string) {
	if rest == "" {
		return "", ""
	}
	if rest[0] == '.' {
		i := strings.IndexAny(rest[1:], ".[")
		if i < 0 {
			return rest, ""
		}
		return rest[:i+1], rest[i+1:]
	}
	i := strings.IndexByte(rest, ']')
	return rest[:i+1], rest[i+1:]
}

func get(cur any, key string) any {
	switch c := cur.(type) {
	case map[string]any:
		return c[stepKey(key)]
	case []any:
		i, err := strconv.Atoi(key[1 : len(key)-1])
		if err != nil || i >= len(c) {
			return nil
		}
		return c[i]
	}
	return nil
}

func assign(cur any, key string, v any) {
	switch c := cur.(type) {
	case map[string]any:
		c[stepKey(key)] = v
	case []any:
		if i, err := strconv.Atoi(key[1 : len(key)-1]); err == nil && i < len(c) {
			c[i] = v
		}
	}
}

func stepKey(step string) string {
	switch {
	case strings.HasPrefix(step, "['"):
		return step[2 : len(step)-2]
	case strings.HasPrefix(step, "."):
		return step[1:]
	}
	return step
}

// fillOthers gives list elements no scalar set a value no constant has:
// an element of a list of strings that no form read.
func fillOthers(v any, path string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			fillOthers(c, path+"."+k)
		}
	case []any:
		for i, c := range x {
			if c == nil {
				x[i] = otherName(fmt.Sprintf("%s[%d]", path, i))
				continue
			}
			fillOthers(c, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// build turns the tree into the request: activity.params, private_key,
// approvers and credentials have fields of their own; the rest are
// keywords.
func (q *question) build(req policyset.Request, tree map[string]any) (policyset.Request, error) {
	if act, ok := tree["activity"].(map[string]any); ok {
		if params, ok := act["params"].(map[string]any); ok {
			req.Params = params
		}
	}
	users, _ := tree["approvers"].([]any)
	if len(users) == 0 {
		users = []any{map[string]any{}}
	}
	for i, u := range users {
		m, _ := u.(map[string]any)
		user := policyset.User{ID: "user-" + strconv.Itoa(i)}
		if i == 0 {
			user.ID = "requester"
		}
		if id, ok := m["id"].(string); ok {
			user.ID = id
		}
		user.Email, _ = m["email"].(string)
		user.Alias, _ = m["alias"].(string)
		for _, t := range asList(m["tags"]) {
			user.Tags = append(user.Tags, fmt.Sprint(t))
		}
		req.Approvers = append(req.Approvers, user)
	}
	if creds, ok := tree["credentials"].([]any); ok || q.e.lists["credentials"] != nil {
		req.Credentials = []policyset.Credential{}
		for i, u := range req.Approvers {
			var m map[string]any
			if i < len(creds) {
				m, _ = creds[i].(map[string]any)
			}
			cr := policyset.Credential{UserID: u.ID}
			cr.ID, _ = m["id"].(string)
			cr.Type, _ = m["type"].(string)
			cr.CredentialID, _ = m["credential_id"].(string)
			cr.PublicKey, _ = m["public_key"].(string)
			req.Credentials = append(req.Credentials, cr)
		}
	}
	if k, ok := tree["private_key"].(map[string]any); ok {
		pk := &policyset.PrivateKey{}
		pk.ID, _ = k["id"].(string)
		pk.Label, _ = k["label"].(string)
		pk.Imported, _ = k["imported"].(bool)
		pk.Exported, _ = k["exported"].(bool)
		for _, t := range asList(k["tags"]) {
			pk.Tags = append(pk.Tags, fmt.Sprint(t))
		}
		req.PrivateKey = pk
	}
	for _, kw := range slices.Sorted(maps.Keys(tree)) {
		switch kw {
		case "activity", "approvers", "credentials", "private_key", "time.now":
			continue
		}
		if err := req.SetKeyword(kw, tree[kw]); err != nil {
			return req, fmt.Errorf("the witness's %s: %w", kw, err)
		}
	}
	return req, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
