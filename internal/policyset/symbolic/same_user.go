package symbolic

import (
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// Two users' ids compared with each other ("two distinct officers":
// approvers.any(u, ... approvers.any(v, v.id != u.id && ...))) are
// decided where both are approvers: the request model's approvers are
// distinct users (distinctUsers: at most one per named id, and a
// witness names every other one apart), and a credential is its
// approver's (credentialUser), so approvers[i].id == approvers[j].id
// exactly when i == j. Elsewhere (a user id listed in the activity's
// parameters, say) the comparison stays over-approximated.

// wholeStrings tells whether x and y are both a string read whole from
// the request.
func wholeStrings(x, y *term) bool {
	for _, t := range []*term{x, y} {
		if t.kind != tPath || t.slice != nil || t.typ.Kind != policylang.KindString {
			return false
		}
	}
	return true
}

// userID tells whether t is a user's id: an approver's or a credential's
// user.
func userID(t *term) bool { return t.gen == "approvers[*].id" || t.gen == "credentials[*].user_id" }

// sameUserDecided is f's value where f compares two approvers' ids; ok is
// false where it is not decided here.
func (e *encoder) sameUserDecided(f *form) (_ value, ok bool) {
	if f.pathEq == "" || !userID(f.left) || !userID(f.right) {
		return value{}, false
	}
	i, ok1 := approverSlot(e.concrete(f.left.path))
	j, ok2 := approverSlot(e.concrete(f.right.path))
	if !ok1 || !ok2 {
		return value{}, false
	}
	same := (i == j) == (f.pathEq == "==")
	v := litFalse
	if same {
		v = litTrue
	}
	return value{v, e.readsErr(f)}, true
}

// approverSlot is the approver whose id path is: approvers[i].id, or
// credentials[i].user_id (the credential of approver i).
func approverSlot(path string) (int, bool) {
	if alias, ok := credentialUser(path); ok {
		path = alias
	}
	rest, ok := strings.CutPrefix(path, "approvers[")
	if !ok {
		return 0, false
	}
	n, field, ok := strings.Cut(rest, "]")
	if !ok || field != ".id" {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil
}
