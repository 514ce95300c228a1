package provider

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator/emulatortest"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// A list of activities the service refuses makes the replay say so, with
// the service's message, and nothing else: the replay is an aid, and the
// review around it goes on.
func TestReplayNotMade(t *testing.T) {
	e := newAccEmulator(t)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/public/v1/query/"+client.QueryListActivities {
			writeTestJSON(w, http.StatusForbidden, `{"code":7,"message":"listing activities is not permitted for this key"}`)
			return
		}
		e.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(refusing.Close)
	pd := newProviderData(emulatortest.NewClient(t, refusing.URL, accOrg, e.key), time.Minute)
	pd.replay = &replaySettings{days: 30, most: 100}
	a := newAccessReview(pd)
	limit := policyset.Policy{ID: "p", Name: "limit", Effect: client.EffectAllow,
		Condition: "activity.type == '" + client.OpSignTransaction.Type + "' && eth.tx.value < 10"}
	raised := limit
	raised.Condition = strings.Replace(limit.Condition, "< 10", "< 20", 1)
	said, res := a.replayed(t.Context(), review.NewOrg([]policyset.Policy{limit}, nil), review.Change{Before: &limit, After: &raised}, nil)
	if res != nil || !strings.HasPrefix(said, "Replay not made: ") || !strings.Contains(said, "listing activities is not permitted") {
		t.Fatalf("replay %q, result %v", said, res)
	}
	t.Log(said)
	// The command's read is not made again by the next change.
	before := e.srv.RequestCounts()
	if again, _ := a.replayed(t.Context(), review.NewOrg([]policyset.Policy{limit}, nil), review.Change{Before: &limit, After: &raised}, nil); again != said {
		t.Errorf("the second change says %q", again)
	}
	if after := e.srv.RequestCounts(); after["query/"+client.QueryListPrivateKeys] != before["query/"+client.QueryListPrivateKeys] {
		t.Errorf("the second change read the keys again")
	}
}

func writeTestJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
