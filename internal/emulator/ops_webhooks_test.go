package emulator

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func flag(v bool) *bool { return &v }

func createEndpoint(t *testing.T, e *testEmulator, url string, subs ...client.WebhookSubscription) client.WebhookEndpoint {
	t.Helper()
	got, err := e.client.CreateWebhookEndpoint(t.Context(), client.CreateWebhookEndpointParams{URL: url, Name: "hook", Subscriptions: subs})
	if err != nil {
		t.Fatalf("create_webhook_endpoint: %v", err)
	}
	if got.Result.EndpointID != got.Result.WebhookEndpoint.EndpointID {
		t.Fatalf("result %+v", got.Result)
	}
	return got.Result.WebhookEndpoint
}

func listEndpoints(t *testing.T, e *testEmulator) []client.WebhookEndpoint {
	t.Helper()
	got, err := e.client.ListWebhookEndpoints(t.Context(), client.ListWebhookEndpointsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return got.WebhookEndpoints
}

func TestWebhookEndpointRoundTrip(t *testing.T) {
	e := newTestEmulator(t)
	ep := createEndpoint(t, e, "https://hooks.example.com/in",
		client.WebhookSubscription{EventType: "ACTIVITY_UPDATES"},
		client.WebhookSubscription{EventType: "BALANCE_CONFIRMED_UPDATES", FiltersJSON: `{"caip2":"eip155:1"}`, IsActive: flag(false)})
	if ep.URL != "https://hooks.example.com/in" || ep.Name != "hook" || !ep.IsActive || ep.OrganizationID != testOrg || len(ep.Subscriptions) != 2 {
		t.Fatalf("created %+v", ep)
	}
	// isActive left out means true, and is stored (and shown) explicitly.
	if s := ep.Subscriptions[0]; s.IsActive == nil || !*s.IsActive {
		t.Fatalf("default subscription %+v", s)
	}
	if s := ep.Subscriptions[1]; s.IsActive == nil || *s.IsActive || s.FiltersJSON != `{"caip2":"eip155:1"}` {
		t.Fatalf("second subscription %+v", s)
	}
	raw := e.post(t, "/public/v1/query/list_webhook_endpoints", []byte(`{"organizationId":"org-test"}`), e.key)
	if !strings.Contains(string(raw.Raw), `"eventType":"ACTIVITY_UPDATES","isActive":true`) {
		t.Fatalf("list answer %s", raw.Raw)
	}

	upd, err := e.client.UpdateWebhookEndpoint(t.Context(), client.UpdateWebhookEndpointParams{EndpointID: ep.EndpointID, URL: "http://127.0.0.1:9/x", IsActive: flag(false)})
	if err != nil {
		t.Fatal(err)
	}
	want := ep
	want.URL, want.IsActive = "http://127.0.0.1:9/x", false
	if got := upd.Result.WebhookEndpoint; got.URL != want.URL || got.IsActive || got.Name != "hook" || len(got.Subscriptions) != 2 {
		t.Fatalf("updated %+v", got)
	}
	if l := listEndpoints(t, e); len(l) != 1 || l[0].URL != want.URL || l[0].IsActive || l[0].Name != "hook" {
		t.Fatalf("listed %+v", l)
	}
	if _, err := e.client.UpdateWebhookEndpoint(t.Context(), client.UpdateWebhookEndpointParams{EndpointID: ep.EndpointID, Name: "renamed"}); err != nil {
		t.Fatal(err)
	}
	if l := listEndpoints(t, e); l[0].Name != "renamed" || l[0].URL != want.URL || l[0].IsActive {
		t.Fatalf("a rename changed more: %+v", l[0])
	}

	del, err := e.client.DeleteWebhookEndpoint(t.Context(), client.DeleteWebhookEndpointParams{EndpointID: ep.EndpointID})
	if err != nil || del.Result.EndpointID != ep.EndpointID {
		t.Fatalf("delete: %+v, %v", del, err)
	}
	if l := listEndpoints(t, e); l == nil || len(l) != 0 {
		t.Fatalf("after delete: %+v", l)
	}
	_, err = e.client.UpdateWebhookEndpoint(t.Context(), client.UpdateWebhookEndpointParams{EndpointID: ep.EndpointID, Name: "x"})
	wantFailedActivity(t, err, client.CodeNotFound, "webhook endpoint "+ep.EndpointID+" not found")
	_, err = e.client.DeleteWebhookEndpoint(t.Context(), client.DeleteWebhookEndpointParams{EndpointID: ep.EndpointID})
	wantFailedActivity(t, err, client.CodeNotFound, "not found")
}

func TestListWebhookEndpointsSortedByID(t *testing.T) {
	e := newTestEmulator(t)
	for range 5 {
		createEndpoint(t, e, "https://h.example/")
	}
	l := listEndpoints(t, e)
	if len(l) != 5 || !slices.IsSortedFunc(l, func(a, b client.WebhookEndpoint) int { return strings.Compare(a.EndpointID, b.EndpointID) }) {
		t.Fatalf("listed %+v", l)
	}
}

func TestWebhookEndpointValidation(t *testing.T) {
	e := newTestEmulator(t)
	const create, update = "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT"
	sub := func(s string) string { return `{"url":"https://h.example","name":"n","subscriptions":[` + s + `]}` }
	for _, tt := range []struct{ op, typ, params, want string }{
		{"create", create, `{"name":"n"}`, "missing required field parameters.url"},
		{"create", create, `{"url":"https://h.example"}`, "missing required field parameters.name"},
		{"create", create, `{"url":"/relative","name":"n"}`, `field parameters.url: "/relative" is not an absolute http or https URL`},
		{"create", create, `{"url":"ftp://h.example","name":"n"}`, "not an absolute http or https URL"},
		{"create", create, `{"url":"https://","name":"n"}`, "with a host"},
		{"create", create, `{"url":"https://h.example/` + strings.Repeat("a", 2050) + `","name":"n"}`, "the limit is 2048"},
		{"create", create, `{"url":"https://h.example","name":" "}`, "field parameters.name must not be empty"},
		{"create", create, sub(`{"filtersJson":"{}"}`), "missing required field parameters.subscriptions[0].eventType"},
		{"create", create, sub(`{"eventType":"EVERYTHING"}`), `field parameters.subscriptions[0].eventType: unknown value "EVERYTHING"`},
		{"create", create, sub(`{"eventType":"ACTIVITY_UPDATES"},{"eventType":"ACTIVITY_UPDATES","isActive":false}`), "subscriptions[1].eventType: ACTIVITY_UPDATES is already subscribed"},
		{"create", create, sub(`{"eventType":"ACTIVITY_UPDATES","filtersJson":"[1]"}`), "parameters.subscriptions[0].filtersJson must be a JSON object"},
		{"create", create, sub(`{"eventType":"ACTIVITY_UPDATES","filtersJson":"nope"}`), "filtersJson must be a JSON object"},
		{"create", create, sub(`{"eventType":"ACTIVITY_UPDATES","isActive":"yes"}`), "wrong JSON type"},
		{"create", create, `{"url":"https://h.example","name":"n","secret":"s"}`, `unknown field "secret"`},
		{"update", update, `{"name":"n"}`, "missing required field parameters.endpointId"},
		{"update", update, `{"endpointId":"e","url":"mailto:x@y"}`, "field parameters.url"},
		{"update", update, `{"endpointId":"e","subscriptions":[]}`, `unknown field "subscriptions"`},
		{"delete", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", `{}`, "missing required field parameters.endpointId"},
	} {
		t.Run(tt.op+" "+tt.want, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/"+tt.op+"_webhook_endpoint", submitBody(tt.typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
	if l := listEndpoints(t, e); len(l) != 0 {
		t.Fatalf("refused requests created %+v", l)
	}
}
