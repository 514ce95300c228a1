package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// hookReceiver is a webhook endpoint on 127.0.0.1 that records what it
// gets and answers with status(n) for the n-th request (1-based).
type hookReceiver struct {
	mu     sync.Mutex
	got    []hookRequest
	status func(n int) int
	srv    *httptest.Server
}

type hookRequest struct {
	path   string
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, status func(n int) int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{status: status}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, hookRequest{path: r.URL.Path, header: r.Header.Clone(), body: body})
		n := len(h.got)
		h.mu.Unlock()
		code := http.StatusOK
		if h.status != nil {
			code = h.status(n)
		}
		if code == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// waitFor polls until cond holds over the requests received, or fails.
func (h *hookReceiver) waitFor(t *testing.T, what string, cond func([]hookRequest) bool) []hookRequest {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := h.requests()
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; received %d requests", what, len(got))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// forActivity keeps the deliveries about one activity.
func forActivity(reqs []hookRequest, activityID string) []hookRequest {
	var out []hookRequest
	for _, r := range reqs {
		var body struct{ Activity client.Activity }
		if json.Unmarshal(r.body, &body) == nil && body.Activity.ID == activityID {
			out = append(out, r)
		}
	}
	return out
}

func activityUpdates() client.WebhookSubscription {
	return client.WebhookSubscription{EventType: "ACTIVITY_UPDATES"}
}

// TestWebhookDeliveryVerifies checks a delivery end to end: it arrives for
// a later activity and verifies against the key set the emulator serves.
func TestWebhookDeliveryVerifies(t *testing.T) {
	e := newTestEmulator(t)
	recv := newHookReceiver(t, nil)
	createEndpoint(t, e, recv.srv.URL+"/hook", activityUpdates())
	renamed, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Hooked"})
	if err != nil {
		t.Fatal(err)
	}
	got := forActivity(recv.waitFor(t, "the rename's delivery", func(r []hookRequest) bool { return len(forActivity(r, renamed.Activity.ID)) > 0 }), renamed.Activity.ID)[0]

	verifier := client.NewWebhookVerifier(client.NewWebhookKeyCache(nil, e.http.URL+client.WebhookKeySetPath))
	d, err := verifier.Verify(t.Context(), got.header, got.body)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if d.EventType != "ACTIVITY_UPDATES" || d.OrganizationID != testOrg || d.KeyID != e.srv.webhookKid || d.EventID == "" {
		t.Fatalf("delivery %+v", d)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if sig := got.header.Get(client.WebhookHeaderSignature); !regexp.MustCompile(`^[0-9a-f]{128}$`).MatchString(sig) {
		t.Errorf("signature %q is not 64 bytes of lowercase hex", sig)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(got.body, &body); err != nil || len(body) != 1 || body["activity"] == nil {
		t.Fatalf("body %s is not {\"activity\": ...}", got.body)
	}
	var act client.Activity
	_ = json.Unmarshal(body["activity"], &act)
	if act.Status != client.StatusCompleted || act.Type != "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME" || act.Result["updateOrganizationNameResult"] == nil {
		t.Errorf("delivered activity %+v", act)
	}
	// A tampered body must not verify: the signature covers the body.
	if _, err := verifier.Verify(t.Context(), got.header, append(slices.Clone(got.body), ' ')); err == nil {
		t.Error("a changed body verified")
	}
}

// TestWebhookRetriesWithTheSameEventID: the first answer is 500, the
// second 200; both attempts carry the same event id and verify.
func TestWebhookRetriesWithTheSameEventID(t *testing.T) {
	e := newTestEmulator(t)
	recv := newHookReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	createEndpoint(t, e, recv.srv.URL, activityUpdates()) // its own activity is the event
	recv.waitFor(t, "two attempts", func(r []hookRequest) bool { return len(r) >= 2 })
	time.Sleep(3 * deliveryBackoff) // a third attempt would come by now
	got := recv.requests()
	if len(got) != 2 {
		t.Fatalf("%d attempts, want 2 (500, then 200)", len(got))
	}
	id := got[0].header.Get(client.WebhookHeaderEventID)
	if id == "" || got[1].header.Get(client.WebhookHeaderEventID) != id {
		t.Fatalf("event ids %q and %q differ", id, got[1].header.Get(client.WebhookHeaderEventID))
	}
	// Each attempt is signed afresh: the retry waited deliveryBackoff.
	ts1, _ := strconv.ParseInt(got[0].header.Get(client.WebhookHeaderTimestamp), 10, 64)
	ts2, _ := strconv.ParseInt(got[1].header.Get(client.WebhookHeaderTimestamp), 10, 64)
	if ts2-ts1 < deliveryBackoff.Milliseconds() {
		t.Errorf("timestamps %d then %d: the retry was not re-signed", ts1, ts2)
	}
	verifier := client.NewWebhookVerifier(client.NewWebhookKeyCache(nil, e.http.URL+client.WebhookKeySetPath))
	for i, r := range got {
		if _, err := verifier.Verify(t.Context(), r.header, r.body); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
}

// TestWebhookRetriesAreBounded: a receiver that always fails gets
// deliveryAttempts attempts, then no more.
func TestWebhookRetriesAreBounded(t *testing.T) {
	e := newTestEmulator(t)
	recv := newHookReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	createEndpoint(t, e, recv.srv.URL, activityUpdates())
	recv.waitFor(t, "every attempt", func(r []hookRequest) bool { return len(r) >= deliveryAttempts })
	time.Sleep(16 * deliveryBackoff) // longer than the next backoff would be
	if n := len(recv.requests()); n != deliveryAttempts {
		t.Fatalf("%d attempts, want %d", n, deliveryAttempts)
	}
}

// TestWebhookDoesNotFollowRedirects: a 302 (to /elsewhere on the same
// receiver) is a failed attempt, and its target never hears of the event.
func TestWebhookDoesNotFollowRedirects(t *testing.T) {
	e := newTestEmulator(t)
	recv := newHookReceiver(t, func(int) int { return http.StatusFound })
	createEndpoint(t, e, recv.srv.URL+"/hook", activityUpdates())
	recv.waitFor(t, "every attempt", func(r []hookRequest) bool { return len(r) >= deliveryAttempts })
	time.Sleep(2 * deliveryBackoff)
	got := recv.requests()
	if len(got) != deliveryAttempts || slices.ContainsFunc(got, func(r hookRequest) bool { return r.path != "/hook" }) {
		t.Fatalf("requests %+v: want %d attempts, all at /hook", got, deliveryAttempts)
	}
}

// TestWebhookInactiveEndpointsGetNothing: of four endpoints only the active
// one with an active ACTIVITY_UPDATES subscription hears of an activity.
func TestWebhookInactiveEndpointsGetNothing(t *testing.T) {
	e := newTestEmulator(t)
	active := newHookReceiver(t, nil)
	others := map[string]*hookReceiver{"inactive endpoint": newHookReceiver(t, nil), "inactive subscription": newHookReceiver(t, nil),
		"other event type": newHookReceiver(t, nil)}
	createEndpoint(t, e, active.srv.URL, activityUpdates())
	off := createEndpoint(t, e, others["inactive endpoint"].srv.URL, activityUpdates())
	if _, err := e.client.UpdateWebhookEndpoint(t.Context(), client.UpdateWebhookEndpointParams{EndpointID: off.EndpointID, IsActive: flag(false)}); err != nil {
		t.Fatal(err)
	}
	createEndpoint(t, e, others["inactive subscription"].srv.URL, client.WebhookSubscription{EventType: "ACTIVITY_UPDATES", IsActive: flag(false)})
	createEndpoint(t, e, others["other event type"].srv.URL, client.WebhookSubscription{EventType: "BALANCE_CONFIRMED_UPDATES"})

	renamed, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Quiet"})
	if err != nil {
		t.Fatal(err)
	}
	active.waitFor(t, "the active endpoint's delivery", func(r []hookRequest) bool { return len(forActivity(r, renamed.Activity.ID)) == 1 })
	time.Sleep(4 * deliveryBackoff) // deliveries are queued together: any other would be here by now
	for name, r := range others {
		if got := forActivity(r.requests(), renamed.Activity.ID); len(got) != 0 {
			t.Errorf("%s received the activity", name)
		}
	}
}

// TestWebhookTargets checks the selection itself, without timing.
func TestWebhookTargets(t *testing.T) {
	e := newTestEmulator(t)
	yes, no := flag(true), flag(false)
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	for id, ep := range map[string]*client.WebhookEndpoint{
		"b": {URL: "u-b", IsActive: true, OrganizationID: testOrg, Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: yes}}},
		"a": {URL: "u-a", IsActive: true, OrganizationID: testOrg, Subscriptions: []client.WebhookSubscription{
			{EventType: "BALANCE_FINALIZED_UPDATES", IsActive: yes}, {EventType: "ACTIVITY_UPDATES"}}},
		"c": {URL: "u-c", IsActive: false, OrganizationID: testOrg, Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: yes}}},
		"d": {URL: "u-d", IsActive: true, OrganizationID: testOrg, Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES", IsActive: no}}},
		"e": {URL: "u-e", IsActive: true, OrganizationID: testOrg, Subscriptions: []client.WebhookSubscription{{EventType: "SEND_TRANSACTION_STATUS_UPDATES"}}},
		"f": {URL: "u-f", IsActive: true, OrganizationID: testOrg},
		"g": {URL: "u-g", IsActive: true, OrganizationID: "other-org", Subscriptions: []client.WebhookSubscription{{EventType: "ACTIVITY_UPDATES"}}},
	} {
		ep.EndpointID = id
		e.srv.st.WebhookEndpoints[id] = ep
	}
	if got := e.srv.deliveries.targets(testOrg); !slices.Equal(got, []string{"u-a", "u-b"}) {
		t.Fatalf("targets = %v, want [u-a u-b]", got)
	}
}

// TestWebhookFullQueueDropsWithoutBlocking: with no worker and room for
// one delivery, further events are dropped at once (the caller holds the
// server lock, so it must never wait).
func TestWebhookFullQueueDropsWithoutBlocking(t *testing.T) {
	e := newTestEmulator(t)
	createEndpoint(t, e, "http://127.0.0.1:9/", activityUpdates())
	d := startDeliverer(e.srv, 1, 0)
	defer d.close()
	done := make(chan struct{})
	go func() {
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		for range 3 {
			d.activityUpdated(client.Activity{ID: "act", OrganizationID: testOrg})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("activityUpdated blocked on a full queue")
	}
	if n := len(d.queue); n != 1 {
		t.Fatalf("queue holds %d deliveries, want 1", n)
	}
}

// TestWebhookCloseAbandonsInFlight: close returns while a receiver hangs.
func TestWebhookCloseAbandonsInFlight(t *testing.T) {
	e := newTestEmulator(t)
	entered, release := make(chan struct{}, 8), make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		entered <- struct{}{}
		select {
		case <-r.Context().Done(): // the emulator gave up on the request
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first: hang.Close never waits on us
	createEndpoint(t, e, hang.URL, activityUpdates())
	<-entered
	closed := make(chan struct{})
	go func() { e.srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("Close waited for a hanging receiver")
	}
}
