package review

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// breachRow is a breach's witness as a row: its verdict before the plan
// (the organization as it is) and in the most permissive state (allow).
func breachRow(typ string, req policyset.Request, org []policyset.Policy) Row {
	r := Row{Type: typ, Types: []string{typ}, TypesWords: typ, Before: policyset.Decide(org, req).Verdict, After: client.OutcomeAllow,
		Request: req, Example: example(req), Proved: true}
	r.Words = who(req.Approvers) + ", " + typ
	return r
}
