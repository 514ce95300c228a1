package emulator

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Fuzz targets of the emulator's request handling. Requests go straight to
// Server.ServeHTTP through httptest.NewRecorder, so a panic reaches the
// fuzzer instead of being recovered by net/http. The clock is fixed, so
// that timestampMs values in seeds and crashers stay live forever.

// A fixed root key pair, so that seeds and crashers are reproducible.
const (
	fuzzRootPublicKey  = "02724268adc862cb6a063de99555e65a920f228dfa90490e1f46d0346ebd87b7f4"
	fuzzRootPrivateKey = "6e36a7e5adb567899060c48ecd055285f5616f309cbfe5c17749231733e6920e"
	fuzzSubOrg         = "org-sub"
	fuzzMaxBody        = 64 << 10
)

var fuzzNow = time.UnixMilli(1795300000000)

// fuzzDocumentedStatuses are the statuses the service answers a POST with
// when no fault is injected.
var fuzzDocumentedStatuses = []int{http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
	http.StatusNotFound, http.StatusRequestEntityTooLarge}

// okTransport answers every webhook delivery 204 from memory.
type okTransport struct{}

func (okTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// fuzzEmulator is one server for a whole fuzz target; reset gives it a
// new state before each input so that inputs do not depend on each other.
type fuzzEmulator struct {
	srv  *Server
	opts Options
	key  *client.APIKey
}

func newFuzzEmulator(f *testing.F) *fuzzEmulator {
	f.Helper()
	key, err := client.ParseAPIKey(fuzzRootPublicKey, fuzzRootPrivateKey)
	if err != nil {
		f.Fatal(err)
	}
	opts := Options{
		OrganizationID: testOrg, OrganizationName: "Fuzz Org", RootQuorum: 1,
		RootUsers:         []RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: fuzzRootPublicKey}},
		MaxBodyBytes:      fuzzMaxBody,
		WebhookHTTPClient: &http.Client{Transport: okTransport{}},
		Now:               func() time.Time { return fuzzNow },
		Fixtures: &Fixtures{
			SubOrganizations: []FixtureOrganization{{OrganizationID: fuzzSubOrg, Name: "Sub"}},
			Users:            []FixtureUser{{UserID: "user-alice", UserName: "alice"}},
			MfaPolicies: map[string][]client.MfaPolicy{"user-alice": {{MfaPolicyID: "mfa-1", MfaPolicyName: "step-up", Condition: "true",
				RequiredAuthenticationMethods: []client.RequiredAuthenticationMethod{{Any: []client.AuthenticationMethod{{Type: "AUTHENTICATION_TYPE_PASSKEY"}}}}}}},
			AppStatuses:             []client.AppStatus{{AppID: "app-1"}},
			SendTransactionStatuses: map[string]client.GetSendTransactionStatusResponse{"sts-1": {TxStatus: "COMPLETED"}},
		},
	}
	srv, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	return &fuzzEmulator{srv: srv, opts: opts, key: key}
}

func (e *fuzzEmulator) reset(t *testing.T) {
	st, err := e.srv.firstStart(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.mu.Lock()
	e.srv.st = st
	e.srv.mu.Unlock()
}

// serve posts body to path with the X-Stamp header (none when empty).
func (e *fuzzEmulator) serve(path, stamp string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if stamp != "" {
		req.Header.Set(client.StampHeader, stamp)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

// fuzzRoute is one operation's path.
type fuzzRoute struct {
	kind routeKind
	op   string
}

func (r fuzzRoute) path() string { return "/public/v1/" + string(r.kind) + "/" + r.op }

// fuzzRoutes lists every registered operation, submits then queries, each
// sorted, so that a selector byte always names the same one.
func fuzzRoutes() []fuzzRoute {
	var out []fuzzRoute
	for _, op := range slices.Sorted(maps.Keys(submitOps)) {
		out = append(out, fuzzRoute{routeSubmit, op})
	}
	for _, op := range slices.Sorted(maps.Keys(queryOps)) {
		out = append(out, fuzzRoute{routeQuery, op})
	}
	return out
}

// fuzzEnvelope builds a submit body at the fixed clock.
func fuzzEnvelope(typ, org string, at time.Time, params string) []byte {
	return []byte(`{"type":` + strconv.Quote(typ) + `,"timestampMs":"` + strconv.FormatInt(at.UnixMilli(), 10) +
		`","organizationId":` + strconv.Quote(org) + `,"parameters":` + params + `}`)
}

// fuzzSubmitParams are valid (or nearly valid) parameters per submit
// operation; an operation not listed gets {}.
var fuzzSubmitParams = map[string][]string{
	"create_policies": {`{"policies":[{"policyName":"two approvers","effect":"EFFECT_ALLOW","condition":"activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'","consensus":"approvers.count() >= 2","notes":"n"}]}`,
		`{"policies":[{"policyName":"bad","effect":"EFFECT_ALLOW","condition":"activity.resource ==","notes":""}]}`},
	"update_policy":            {`{"policyId":"p-unknown","policyName":"renamed","policyEffect":"EFFECT_DENY"}`},
	"delete_policy":            {`{"policyId":"p-unknown"}`},
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

// isJSONObject is the test's own rule for "the body is one JSON object".
func isJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return json.Valid(b) && len(t) > 0 && t[0] == '{'
}

// checkAnswer asserts what every answer must be: a documented status; a
// JSON error body {code, message, details} with a message when not 2xx; a
// JSON object when 2xx.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, path string, body []byte) {
	t.Helper()
	status, raw := rec.Code, rec.Body.Bytes()
	if !slices.Contains(fuzzDocumentedStatuses, status) {
		t.Fatalf("%s: undocumented status %d for body %q: %s", path, status, body, raw)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: HTTP %d with Content-Type %q", path, status, ct)
	}
	if status == http.StatusOK {
		if !isJSONObject(raw) {
			t.Fatalf("%s: HTTP 200 with a body that is not a JSON object: %q", path, raw)
		}
		return
	}
	var e struct {
		Code    *int              `json:"code"`
		Message *string           `json:"message"`
		Details []json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == nil || *e.Code == 0 || e.Message == nil || e.Details == nil {
		t.Fatalf("%s: HTTP %d error body is not {code, message, details}: %q (%v)", path, status, raw, err)
	}
	if strings.TrimSpace(*e.Message) == "" {
		t.Fatalf("%s: HTTP %d error body has an empty message: %q", path, status, raw)
	}
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

// genuineStamp is the test's own check that header holds one JSON object
// with an ECDSA P-256 signature of exactly body by the key it names. It is
// more lenient than the emulator (unknown fields, any scheme): any stamp
// the emulator may accept must pass it.
func genuineStamp(header string, body []byte) bool {
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return false
	}
	var st client.Stamp
	if err := json.Unmarshal(raw, &st); err != nil { // one JSON value, nothing after it
		return false
	}
	pub, err := client.ParsePublicKey(strings.ToLower(st.PublicKey))
	if err != nil {
		return false
	}
	sig, err := hex.DecodeString(st.Signature)
	if err != nil {
		return false
	}
	digest := sha256.Sum256(body)
	return ecdsa.VerifyASN1(pub, digest[:], sig)
}

// FuzzStampVerification sends arbitrary X-Stamp headers, or a genuine
// stamp of another body, with arbitrary bodies. It asserts: no panic; a
// documented status with a well-formed error body; 401 whenever the stamp
// is not a genuine signature of the exact body by the key it names.
func FuzzStampVerification(f *testing.F) {
	e := newFuzzEmulator(f)
	routes := fuzzRoutes()
	whoamiAt := slices.Index(routes, fuzzRoute{routeQuery, "whoami"})
	renameAt := slices.Index(routes, fuzzRoute{routeSubmit, "update_organization_name"})
	if whoamiAt < 0 || renameAt < 0 {
		f.Fatal("whoami or update_organization_name is not registered")
	}
	fixedBody := []byte(`{"organizationId":"org-test"}`)
	fixedStamp, err := e.key.Stamp(fixedBody)
	if err != nil {
		f.Fatal(err)
	}
	stampJSON := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	signatureOf := func(stamp string) string {
		raw, _ := base64.RawURLEncoding.DecodeString(stamp)
		var st client.Stamp
		_ = json.Unmarshal(raw, &st)
		return st.Signature
	}
	fixedSig := signatureOf(fixedStamp)
	rename := fuzzEnvelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", testOrg, fuzzNow, `{"organizationName":"Stamped"}`)
	renameStamp, err := e.key.Stamp(rename)
	if err != nil {
		f.Fatal(err)
	}
	renameSig := signatureOf(renameStamp)
	for _, s := range []struct {
		sel    uint16
		fixed  bool
		header string
		body   []byte
	}{
		{uint16(whoamiAt), true, "", fixedBody},              // genuine
		{uint16(whoamiAt), true, "", append(fixedBody, ' ')}, // one more byte
		{uint16(whoamiAt), true, "", []byte(`{"organizationId":"org-tesT"}`)},
		{uint16(renameAt), true, "", rename}, // another body
		{uint16(renameAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + renameSig + `"}`), rename},
		{uint16(whoamiAt), false, "", fixedBody},               // no stamp
		{uint16(whoamiAt), false, fixedStamp + "=", fixedBody}, // padded
		{uint16(whoamiAt), false, fixedStamp[:len(fixedStamp)-2], fixedBody},
		{uint16(whoamiAt), false, "not base64!", fixedBody},
		{uint16(whoamiAt), false, stampJSON(`null`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`[]`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + strings.ToUpper(fuzzRootPublicKey) + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_ED25519","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `","extra":1}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"} trailing`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + strings.ToUpper(fixedSig) + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig[:len(fixedSig)-2] + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":""}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"3006020101020101"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"02` + strings.Repeat("0", 64) + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":7,"scheme":null,"signature":[]}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(strings.Repeat(`{"a":`, 3000)), fixedBody},
	} {
		f.Add(s.sel, s.fixed, s.header, s.body)
	}
	f.Fuzz(func(t *testing.T, sel uint16, useFixedStamp bool, header string, body []byte) {
		r := routes[int(sel)%len(routes)]
		if useFixedStamp {
			header = fixedStamp
		}
		e.reset(t)
		rec := e.serve(r.path(), header, body)
		checkAnswer(t, rec, r.path(), body)
		if rec.Code != http.StatusUnauthorized && len(body) <= fuzzMaxBody && !genuineStamp(header, body) {
			t.Fatalf("%s: HTTP %d, not 401, for stamp %q over body %q: %s", r.path(), rec.Code, header, body, rec.Body)
		}
	})
}
