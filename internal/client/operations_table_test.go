package client

import (
	"strings"
	"testing"
)

// TestOperationTableIsConsistent guards the one table every other package
// reads: names, types and keys are unique and shaped as the service's are.
func TestOperationTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range Operations() {
		for _, v := range []string{op.Name, op.Type, op.IntentKey} {
			if v == "" || seen[v] {
				t.Errorf("%+v: empty or repeated %q", op, v)
			}
			seen[v] = true
		}
		if !strings.HasPrefix(op.Type, ActivityTypePrefix) || strings.ToUpper(op.Type) != op.Type {
			t.Errorf("%s: type %q is not an ACTIVITY_TYPE_ name", op.Name, op.Type)
		}
		if !strings.Contains(op.IntentKey, "Intent") || (op.ResultKey != "" && !strings.Contains(op.ResultKey, "Result")) {
			t.Errorf("%s: keys %q / %q are not an intent and a result key", op.Name, op.IntentKey, op.ResultKey)
		}
		if op.Name != strings.ToLower(op.Name) || strings.Contains(op.Name, "/") {
			t.Errorf("%s: not a path segment", op.Name)
		}
	}
	for _, q := range Queries() {
		if seen[string(q)] {
			t.Errorf("query %q repeated or shared with a submit", q)
		}
		seen[string(q)] = true
	}
}

// TestSubmitCasesCoverTheTable makes a new operation in the table come with
// its wire test in submitCases.
func TestSubmitCasesCoverTheTable(t *testing.T) {
	cases := map[string]string{}
	for _, c := range submitCases {
		cases[c.op] = c.typ
	}
	for _, op := range Operations() {
		if typ, ok := cases[op.Name]; !ok || typ != op.Type {
			t.Errorf("%s (%s): submitCases has %q", op.Name, op.Type, typ)
		}
	}
	if len(cases) != len(Operations()) {
		t.Errorf("submitCases test %d operations, the table lists %d", len(cases), len(Operations()))
	}
}
