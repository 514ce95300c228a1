package emulator

import (
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestRegistryServesTheClientTable checks that the emulator serves exactly
// the operations of the client's table, each under its own type and keys,
// so that the two cannot drift apart.
func TestRegistryServesTheClientTable(t *testing.T) {
	ops := client.Operations()
	for _, op := range ops {
		spec, ok := submitOps[op.Name]
		if !ok {
			t.Errorf("submit %s is in the client's table but not served", op.Name)
			continue
		}
		if spec.Operation != op {
			t.Errorf("submit %s is served as %+v, the table says %+v", op.Name, spec.Operation, op)
		}
	}
	if len(submitOps) != len(ops) {
		t.Errorf("the emulator serves %d submits, the table lists %d", len(submitOps), len(ops))
	}
	queries := client.Queries()
	for _, q := range queries {
		if _, ok := queryOps[string(q)]; !ok {
			t.Errorf("query %s is in the client's table but not served", q)
		}
	}
	if len(queryOps) != len(queries) {
		t.Errorf("the emulator serves %d queries, the table lists %d", len(queryOps), len(queries))
	}
}
