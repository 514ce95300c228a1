package emulator

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEnvelopeValidation(t *testing.T) {
	e := newTestEmulator(t)
	now := time.Now().UnixMilli()
	env := func(typ, ts, params string) []byte {
		return []byte(fmt.Sprintf(`{"type":%q,"timestampMs":%q,"organizationId":"org-test","parameters":%s}`, typ, ts, params))
	}
	const rename = "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"
	okTS := strconv.FormatInt(now, 10)
	tests := []struct {
		name   string
		path   string
		body   []byte
		status int
		want   string
	}{
		{"unknown submit op", "/public/v1/submit/create_spaceship", env(rename, okTS, `{}`), 404, `unknown submit operation "create_spaceship"`},
		{"unknown query op", "/public/v1/query/get_spaceship", []byte(`{"organizationId":"org-test"}`), 404, `unknown query operation "get_spaceship"`},
		{"unknown path", "/public/v2/query/whoami", []byte(`{}`), 404, "unknown path"},
		{"type of another endpoint", "/public/v1/submit/update_organization_name", env("ACTIVITY_TYPE_CREATE_POLICIES", okTS, `{"organizationName":"x"}`), 400, `does not match endpoint update_organization_name, which takes "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"`},
		{"missing type", "/public/v1/submit/update_organization_name", []byte(`{"timestampMs":"` + okTS + `","organizationId":"org-test","parameters":{}}`), 400, "missing required field type"},
		{"missing timestamp", "/public/v1/submit/update_organization_name", []byte(`{"type":"` + rename + `","organizationId":"org-test","parameters":{}}`), 400, "missing required field timestampMs"},
		{"missing parameters", "/public/v1/submit/update_organization_name", []byte(`{"type":"` + rename + `","timestampMs":"` + okTS + `","organizationId":"org-test"}`), 400, "missing required field parameters"},
		{"timestamp not a string", "/public/v1/submit/update_organization_name", []byte(`{"type":"` + rename + `","timestampMs":` + okTS + `,"organizationId":"org-test","parameters":{}}`), 400, "field timestampMs: wrong JSON type"},
		{"timestamp not a number", "/public/v1/submit/update_organization_name", env(rename, "yesterday", `{"organizationName":"x"}`), 400, "not a decimal count of milliseconds"},
		{"stale timestamp", "/public/v1/submit/update_organization_name", env(rename, strconv.FormatInt(now-6*60*1000, 10), `{"organizationName":"x"}`), 400, "outside the liveness window of ±5m0s"},
		{"future timestamp", "/public/v1/submit/update_organization_name", env(rename, strconv.FormatInt(now+6*60*1000, 10), `{"organizationName":"x"}`), 400, "outside the liveness window"},
		{"unknown envelope field", "/public/v1/submit/update_organization_name", []byte(`{"type":"` + rename + `","timestampMs":"` + okTS + `","organizationId":"org-test","parameters":{},"priority":1}`), 400, `unknown field "priority" in request body`},
		{"unknown parameter", "/public/v1/submit/update_organization_name", env(rename, okTS, `{"organizationNam":"x"}`), 400, `unknown field "organizationNam" in parameters`},
		{"missing parameter", "/public/v1/submit/update_organization_name", env(rename, okTS, `{}`), 400, "missing required field parameters.organizationName"},
		{"wrong parameter type", "/public/v1/submit/update_organization_name", env(rename, okTS, `{"organizationName":5}`), 400, "field parameters.organizationName: wrong JSON type: got number, want string"},
		{"blank name", "/public/v1/submit/update_organization_name", env(rename, okTS, `{"organizationName":"  "}`), 400, "parameters.organizationName must not be empty"},
		{"trailing data", "/public/v1/submit/update_organization_name", append(env(rename, okTS, `{"organizationName":"x"}`), []byte(` {}`)...), 400, "after top-level value"},
		{"not JSON", "/public/v1/query/whoami", []byte(`organizationId=org-test`), 400, "not a JSON object"},
		{"unknown query field", "/public/v1/query/whoami", []byte(`{"organizationId":"org-test","verbose":true}`), 400, `unknown field "verbose"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.post(t, tt.path, tt.body, e.key), tt.status, tt.want)
		})
	}
	// Nothing above may have created an activity.
	list := e.post(t, "/public/v1/query/list_activities", []byte(`{"organizationId":"org-test"}`), e.key)
	if acts, _ := list.Body["activities"].([]any); list.Status != 200 || len(acts) != 0 {
		t.Fatalf("rejected requests left activities: %s", list.Raw)
	}
}

func TestLivenessWindowIsConfigurable(t *testing.T) {
	e := newTestEmulator(t, func(o *Options) { o.LivenessWindow = 10 * time.Minute })
	ts := strconv.FormatInt(time.Now().Add(-6*time.Minute).UnixMilli(), 10)
	body := []byte(`{"type":"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME","timestampMs":"` + ts + `","organizationId":"org-test","parameters":{"organizationName":"late"}}`)
	if a := e.post(t, "/public/v1/submit/update_organization_name", body, e.key); a.Status != 200 {
		t.Fatalf("a 6-minute-old submit within a 10-minute window: %d %s", a.Status, a.Raw)
	}
}

func TestBodyLimitAndMethods(t *testing.T) {
	e := newTestEmulator(t, func(o *Options) { o.MaxBodyBytes = 512 })
	big := submitBody("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", `{"organizationName":"`+strings.Repeat("a", 600)+`"}`)
	wantError(t, e.post(t, "/public/v1/submit/update_organization_name", big, e.key), 413, "exceeds the limit of 512 bytes")

	req, _ := http.NewRequest(http.MethodGet, e.http.URL+"/public/v1/query/whoami", nil)
	wantError(t, do(t, req), 405, "method GET is not allowed here; use POST")
	req, _ = http.NewRequest(http.MethodPost, e.http.URL+"/public/v1/discovery/webhooks/jwks", nil)
	wantError(t, do(t, req), 405, "use GET")
}

func TestSubOrganizationScope(t *testing.T) {
	e := newTestEmulator(t, func(o *Options) {
		o.Fixtures = &Fixtures{SubOrganizations: []FixtureOrganization{{OrganizationID: "sub-1", Name: "Sub"}}}
	})
	sub := e.client.WithOrganization("sub-1")
	who, err := sub.Whoami(t.Context(), whoami())
	if err != nil || who.OrganizationID != "sub-1" || who.OrganizationName != "Sub" {
		t.Fatalf("whoami on the sub-organization: %+v %v", who, err)
	}
	body := []byte(`{"type":"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME","timestampMs":"` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `","organizationId":"sub-1","parameters":{"organizationName":"Renamed Sub"}}`)
	if a := e.post(t, "/public/v1/submit/update_organization_name", body, e.key); a.Status != 200 {
		t.Fatalf("renaming the sub-organization: %d %s", a.Status, a.Raw)
	}
	if who, _ := e.client.Whoami(t.Context(), whoami()); who.OrganizationName != "Test Org" {
		t.Errorf("renaming the sub-organization renamed the parent: %q", who.OrganizationName)
	}
	wantError(t, e.post(t, "/public/v1/query/list_activities_nonexistent", []byte(`{"organizationId":"sub-1"}`), e.key), 404, "unknown query operation")
	list := e.post(t, "/public/v1/query/get_policy_evaluations", []byte(`{"organizationId":"sub-1","activityId":"x"}`), e.key)
	wantError(t, list, 403, "models sub-organizations only for")
}
