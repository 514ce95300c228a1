package replay

import (
	"runtime"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator/emulatortest"
)

// BenchmarkReadHistory is what a plan's replay waits for and holds: a
// 30-day history of about 10,000 activities generated in the emulator,
// read with RecentActivities at 50 ms a request (the emulator's latency
// fault on every request) and rebuilt page by page. It reports the pages,
// the wall time per read, and the heap the rebuilt history keeps.
func BenchmarkReadHistory(b *testing.B) {
	e := emulatortest.Start(b, "org-bench", "Bench Org", func(o *emulator.Options) {
		o.Faults = emulator.Faults{Latency: emulator.FaultRate{Rate: 1}, Delay: 50 * time.Millisecond}
	})
	if _, err := e.Srv.GenerateHistory(emulator.HistoryOptions{Days: 29, PerDay: 345, Seed: 1, RootKeys: []*client.APIKey{e.Key}}); err != nil {
		b.Fatal(err)
	}
	org := &Org{RootUserIDs: []string{"user-root"}, RootQuorum: 1}
	keys, err := e.Client.ListPrivateKeys(b.Context(), client.ListPrivateKeysRequest{})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range keys.PrivateKeys {
		rk := Key{ID: k.PrivateKeyID, Tags: k.PrivateKeyTags}
		for _, a := range k.Addresses {
			rk.Addresses = append(rk.Addresses, a.Address)
			rk.Ethereum = a.Address
		}
		org.Keys = append(org.Keys, rk)
	}
	var end client.RecentEnd
	var heap uint64
	var h *History
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		h = NewHistory(org)
		end, err = e.Client.RecentActivities(b.Context(), time.Now().Add(-30*24*time.Hour), 20000, func(page []client.Activity) error {
			h.Add(page)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heap = after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
	}
	b.ReportMetric(float64(end.Pages), "pages")
	b.ReportMetric(float64(end.Activities), "activities")
	b.ReportMetric(float64(len(h.Requests)), "rebuilt")
	b.ReportMetric(float64(heap)/(1<<20), "MiB-kept")
}
