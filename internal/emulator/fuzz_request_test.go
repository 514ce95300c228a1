package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// fuzzSubmitParams are valid (or nearly valid) parameters per submit
// operation; an operation not listed gets {}.
var fuzzSubmitParams = map[string][]string{
	"create_policies": {`{"policies":[{"policyName":"two approvers","effect":"EFFECT_ALLOW","condition":"activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'","consensus":"approvers.count() >= 2","notes":"n"}]}`,
		`{"policies":[{"policyName":"bad","effect":"EFFECT_ALLOW","condition":"activity.resource ==","notes":""}]}`},
	"update_policy":            {`{"policyId":"p-unknown","policyName":"renamed","policyEffect":"EFFECT_DENY"}`},
	"delete_policy":            {`{"policyId":"p-unknown"}`},
	"delete_policies":          {`{"policyIds":["p-unknown"]}`, `{"policyIds":[]}`},
	"set_ip_allowlist":         {`{"rules":[{"cidr":"10.0.0.0/8","label":"office"},{"cidr":"2001:db8::/32"}],"enabled":true,"onEvaluationError":"ON_EVALUATION_ERROR_DENY"}`, `{"publicKey":"` + fuzzRootPublicKey + `","rules":[]}`, `{"rules":[{"cidr":"10.0.0.1/8"}]}`},
	"remove_ip_allowlist":      {`{}`, `{"publicKey":"02zz"}`},
	"create_private_keys":      {`{"privateKeys":[{"privateKeyName":"k1","curve":"CURVE_SECP256K1","privateKeyTags":[],"addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]}`},
	"create_private_key_tag":   {`{"privateKeyTagName":"tag","privateKeyIds":[]}`},
	"update_private_key_tag":   {`{"privateKeyTagId":"t-unknown","newPrivateKeyTagName":"x","addPrivateKeyIds":[],"removePrivateKeyIds":[]}`},
	"delete_private_key_tags":  {`{"privateKeyTagIds":["t-unknown"]}`},
	"update_organization_name": {`{"organizationName":"Renamed"}`, `{"organizationName":""}`},
	"create_webhook_endpoint":  {`{"url":"https://example.com/hook","name":"hook","subscriptions":[{"eventType":"ACTIVITY_UPDATES"}]}`},
	"update_webhook_endpoint":  {`{"endpointId":"we-unknown","isActive":false}`},
	"delete_webhook_endpoint":  {`{"endpointId":"we-unknown"}`},
	"create_oauth_providers":   {`{"userId":"user-alice","oauthProviders":[{"providerName":"google","oidcClaims":{"iss":"https://accounts.google.com","aud":"app","sub":"123"}}]}`},
	"delete_oauth_providers":   {`{"userId":"user-alice","providerIds":["op-unknown"]}`},
	"approve_activity":         {`{"fingerprint":"fp-unknown"}`},
	"reject_activity":          {`{"fingerprint":"fp-unknown"}`},
	"sign_raw_payload":         {`{"signWith":"pk-unknown","payload":"deadbeef","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_NO_OP"}`},
	"sign_transaction":         {`{"signWith":"pk-unknown","unsignedTransaction":"00","type":"TRANSACTION_TYPE_ETHEREUM"}`},
	"init_otp":                 {`{"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com","appName":"app"}`},
	"verify_otp":               {`{"otpId":"otp-unknown","otpCode":"123456"}`},
	"recover_user":             {`{"userId":"user-alice"}`},
}

// fuzzQueryBodies are request bodies per query operation.
var fuzzQueryBodies = map[string][]string{
	"get_activity":                {`{"organizationId":"org-test","activityId":"act-unknown"}`},
	"get_policy_evaluations":      {`{"organizationId":"org-test","activityId":"act-unknown"}`},
	"list_activities":             {`{"organizationId":"org-test","filterByStatus":["ACTIVITY_STATUS_COMPLETED"],"paginationOptions":{"limit":"10","after":"act-unknown"}}`},
	"get_policy":                  {`{"organizationId":"org-test","policyId":"p-unknown"}`},
	"get_mfa_policy":              {`{"organizationId":"org-test","userId":"user-alice","mfaPolicyId":"mfa-1"}`},
	"get_mfa_policies":            {`{"organizationId":"org-test","userId":"user-alice"}`},
	"list_supported_assets":       {`{"organizationId":"org-test","caip2":"eip155:1"}`},
	"list_earn_enabled_vaults":    {`{"organizationId":"org-test","provider":"EARN_PROVIDER_PROTOCOL_A"}`},
	"list_earn_positions":         {`{"organizationId":"org-test","walletAddress":"0xabc"}`},
	"get_app_status":              {`{"organizationId":"org-test","appId":"app-1"}`},
	"get_send_transaction_status": {`{"organizationId":"org-test","sendTransactionStatusId":"sts-1"}`},
	"get_oauth_providers":         {`{"organizationId":"org-test","userId":"user-alice"}`},
	"get_ip_allowlist":            {`{"organizationId":"org-test","publicKey":"` + fuzzRootPublicKey + `"}`},
	"whoami":                      {`{"organizationId":"org-test"}`, `{"organizationId":"org-sub"}`},
	"get_organization_configs":    {`{"organizationId":"org-test"}`, `{}`},
}

// fuzzRequestSeeds are (route index, body) pairs: valid bodies for every
// operation and their usual mistakes.
func fuzzRequestSeeds(routes []fuzzRoute) []struct {
	sel  uint16
	body []byte
} {
	type seed = struct {
		sel  uint16
		body []byte
	}
	var out []seed
	add := func(i int, b []byte) { out = append(out, seed{uint16(i), b}) }
	stale := fuzzNow.Add(-10 * time.Minute)
	for i, r := range routes {
		if r.kind == routeSubmit {
			typ := submitOps[r.op].Type
			params := fuzzSubmitParams[r.op]
			if len(params) == 0 {
				params = []string{`{}`}
			}
			for _, p := range params {
				add(i, fuzzEnvelope(typ, testOrg, fuzzNow, p))
			}
			if i%3 != 0 {
				continue // the envelope's mistakes are the same for every operation
			}
			p := params[0]
			add(i, fuzzEnvelope(typ, fuzzSubOrg, fuzzNow, p))                 // a sub-organization
			add(i, fuzzEnvelope(typ, "org-other", fuzzNow, p))                // not ours
			add(i, fuzzEnvelope(typ+"_V9", testOrg, fuzzNow, p))              // wrong type
			add(i, fuzzEnvelope(typ, testOrg, stale, p))                      // stale timestampMs
			add(i, fuzzEnvelope(typ, testOrg, fuzzNow, `{"unknownField":1}`)) // unknown parameter
			add(i, fuzzEnvelope(typ, testOrg, fuzzNow, `null`))               // null parameters
			add(i, fuzzEnvelope(typ, testOrg, fuzzNow, `[]`))                 // wrong JSON type
			add(i, bytes.Replace(fuzzEnvelope(typ, testOrg, fuzzNow, p), []byte(`"timestampMs":"`), []byte(`"extra":true,"timestampMs":"`), 1))
			add(i, bytes.Replace(fuzzEnvelope(typ, testOrg, fuzzNow, p), []byte(`"timestampMs":"`), []byte(`"timestampMs":"x`), 1))
			add(i, []byte(`{"type":"`+typ+`","organizationId":"org-test","parameters":{}}`)) // no timestampMs
		} else {
			bodies := fuzzQueryBodies[r.op]
			if len(bodies) == 0 {
				bodies = []string{`{"organizationId":"org-test"}`}
			}
			for _, b := range bodies {
				add(i, []byte(b))
				if i%3 != 0 {
					continue
				}
				add(i, []byte(strings.Replace(b, `"organizationId":"org-test"`, `"organizationId":"org-test","bogus":[1,2]`, 1)))
				add(i, []byte(strings.Replace(b, `"org-test"`, `"org-other"`, 1)))
				add(i, []byte(b[:len(b)-1])) // truncated
			}
		}
	}
	for i := range routes {
		if routes[i].kind == routeQuery && i%3 == 0 {
			add(i, []byte(`{"organizationId":7}`))
			add(i, []byte(`{"organizationId":"org-test","organizationId":""}`))
		}
	}
	deep := strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)
	deepArr := `{"organizationId":"org-test","parameters":` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000) + `}`
	huge := fuzzEnvelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", testOrg, fuzzNow, `{"organizationName":"`+strings.Repeat("n", 40000)+`"}`)
	tooBig := fuzzEnvelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", testOrg, fuzzNow, `{"organizationName":"`+strings.Repeat("n", fuzzMaxBody)+`"}`)
	for i := range routes {
		if i%10 != 0 { // bodies that never get past the envelope: a few operations suffice
			continue
		}
		for _, b := range []string{``, `null`, `[]`, `"x"`, `0`, `{`, `{}`, `{} {}`, `{}x`, "\xff", " \t\n", deep, deepArr} {
			add(i, []byte(b))
		}
		add(i, huge)
		add(i, tooBig)
	}
	return out
}

// FuzzRequest signs an arbitrary body with the root key and sends it to
// the operation (every submit and query) the selector picks. It asserts: no
// panic; a documented status, never 401 (the stamp is genuine); an error
// body {code, message, details} with a non-empty message for every
// non-2xx; a body that is not one JSON object is a 400 (413 when too
// large); a 200 to a submit is an activity record of the endpoint's type.
func FuzzRequest(f *testing.F) {
	e := newFuzzEmulator(f)
	routes := fuzzRoutes()
	for _, s := range fuzzRequestSeeds(routes) {
		f.Add(s.sel, s.body)
	}
	f.Fuzz(func(t *testing.T, sel uint16, body []byte) {
		r := routes[int(sel)%len(routes)]
		e.reset(t)
		stamp, err := e.key.Stamp(body)
		if err != nil {
			t.Fatal(err)
		}
		rec := e.serve(r.path(), stamp, body)
		checkAnswer(t, rec, r.path(), body)
		status := rec.Code
		switch {
		case status == http.StatusUnauthorized:
			t.Fatalf("%s: 401 for a genuine stamp: %s", r.path(), rec.Body)
		case len(body) > fuzzMaxBody:
			if status != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s: HTTP %d for a %d-byte body, want 413", r.path(), status, len(body))
			}
			return
		case status == http.StatusRequestEntityTooLarge:
			t.Fatalf("%s: 413 for a %d-byte body", r.path(), len(body))
		case !isJSONObject(body) && status != http.StatusBadRequest:
			t.Fatalf("%s: HTTP %d for a body that is not a JSON object %q: %s", r.path(), status, body, rec.Body)
		}
		if status != http.StatusOK || r.kind != routeSubmit {
			return
		}
		var answer client.ActivityResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: the 200 answer does not decode as an activity: %v: %s", r.path(), err, rec.Body)
		}
		if a := answer.Activity; a.ID == "" || a.Status == "" || a.Fingerprint == "" {
			t.Fatalf("%s: the 200 answer is not an activity record: %s", r.path(), rec.Body)
		}
		var env struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Type != submitOps[r.op].Type {
			t.Fatalf("%s: accepted type %q, the endpoint takes %q (%v)", r.path(), env.Type, submitOps[r.op].Type, err)
		}
	})
}
