package emulator

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// BenchmarkCreatePolicyPersisted measures one create_policies submit, with
// the state kept in a file, on top of a state that already holds `held`
// policies (and their activities), from 10 submitters at once as
// terraform's default -parallelism: a submit that costs more as the state
// grows makes large applies quadratic.
func BenchmarkCreatePolicyPersisted(b *testing.B) {
	benchmarkCreatePolicy(b, func(o *Options) { o.StatePath = filepath.Join(b.TempDir(), "state.json") })
}

// BenchmarkCreatePolicyInMemory is the same without a state file, as the
// benchmark runs the emulator: what is left is the cost of serving and
// deciding a submit, which must not grow much with the policies held.
func BenchmarkCreatePolicyInMemory(b *testing.B) { benchmarkCreatePolicy(b, func(*Options) {}) }

func benchmarkCreatePolicy(b *testing.B, opts func(*Options)) {
	for _, held := range []int{0, 1000, 3000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			e := newTestEmulator(&testing.T{}, opts)
			create := func(i int) {
				_, err := e.client.CreatePolicies(b.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
					PolicyName: fmt.Sprintf("p-%d", i), Effect: client.EffectAllow, Notes: "benchmark",
					Condition: "activity.resource == 'PRIVATE_KEY'"}}})
				if err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < held; i++ {
				create(i)
			}
			b.ResetTimer()
			b.SetParallelism(max(1, 10/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					create(held + i)
				}
			})
		})
	}
}
