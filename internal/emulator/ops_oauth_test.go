package emulator

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

// jwt builds an (unverified) token with the given payload JSON.
func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc([]byte(payload)) + "." + enc([]byte("signature-bytes"))
}

func withAlice(o *Options) {
	o.Fixtures = &Fixtures{Users: []FixtureUser{{UserID: "user-alice", UserName: "alice"}}}
}

func TestOauthProvidersRoundTrip(t *testing.T) {
	clock := testclock.Ticking(time.Now(), time.Millisecond)
	e := newTestEmulator(t, withAlice, func(o *Options) { o.Now = clock.Now })
	ctx := t.Context()
	token := jwt(`{"iss":"https://accounts.example.com","sub":"alice-sub","aud":["app-1","other"],"exp":1}`)
	created, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-alice", OauthProviders: []client.OauthProviderParams{
		{ProviderName: "google", OidcToken: token},
		{ProviderName: "claims", OidcClaims: &client.OidcClaims{Iss: "https://issuer.example", Sub: "s", Aud: "a"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	more, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-alice", OauthProviders: []client.OauthProviderParams{
		{ProviderName: "third", OidcToken: jwt(`{"iss":"i3","sub":"s3","aud":"a3"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	ids := append(created.Result.ProviderIDs, more.Result.ProviderIDs...)
	got, err := e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: "user-alice"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, name, iss, sub, aud string }{
		{ids[0], "google", "https://accounts.example.com", "alice-sub", "app-1"},
		{ids[1], "claims", "https://issuer.example", "s", "a"},
		{ids[2], "third", "i3", "s3", "a3"},
	}
	if ids[1] < ids[0] { // created together: same createdAt, so id order
		want[0], want[1] = want[1], want[0]
	}
	if len(got.OauthProviders) != len(want) {
		t.Fatalf("got %+v", got.OauthProviders)
	}
	for i, w := range want {
		p := got.OauthProviders[i]
		if p.ProviderID != w.id || p.ProviderName != w.name || p.Issuer != w.iss || p.Subject != w.sub || p.Audience != w.aud || p.CreatedAt.IsZero() {
			t.Errorf("provider %d = %+v, want %+v", i, p, w)
		}
	}
	// The caller's own providers when userId is left out: root has none.
	mine, err := e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{})
	if err != nil || mine.OauthProviders == nil || len(mine.OauthProviders) != 0 {
		t.Fatalf("root's providers: %+v, %v", mine, err)
	}
	// The token is a credential: only the activity's intent may hold it.
	e.srv.mu.Lock()
	st, _ := json.Marshal(e.srv.st.OauthProviders)
	e.srv.mu.Unlock()
	raw := e.post(t, "/public/v1/query/get_oauth_providers", []byte(`{"organizationId":"org-test","userId":"user-alice"}`), e.key)
	result := created.Activity.Result["createOauthProvidersResultV2"]
	for name, b := range map[string][]byte{"state": st, "query answer": raw.Raw, "result": result} {
		if strings.Contains(string(b), token) || strings.Contains(string(b), strings.Split(token, ".")[1]) {
			t.Errorf("the %s holds the raw token", name)
		}
	}
	if !strings.Contains(string(created.Activity.Intent["createOauthProvidersIntentV2"]), token) {
		t.Error("the intent does not echo the submitted parameters")
	}

	del, err := e.client.DeleteOauthProviders(ctx, client.DeleteOauthProvidersParams{UserID: "user-alice", ProviderIDs: []string{ids[0], ids[2]}})
	if err != nil || len(del.Result.ProviderIDs) != 2 {
		t.Fatalf("delete: %+v, %v", del, err)
	}
	got, _ = e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: "user-alice"})
	if len(got.OauthProviders) != 1 || got.OauthProviders[0].ProviderID != ids[1] {
		t.Fatalf("after delete: %+v", got.OauthProviders)
	}
}

func TestOauthProviderFailures(t *testing.T) {
	e := newTestEmulator(t, withAlice)
	ctx := t.Context()
	claims := &client.OidcClaims{Iss: "i", Sub: "s", Aud: "a"}
	r, err := e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-alice", OauthProviders: []client.OauthProviderParams{{ProviderName: "p", OidcClaims: claims}}})
	if err != nil {
		t.Fatal(err)
	}
	aliceProvider := r.Result.ProviderIDs[0]
	// The same identity, even as a token and for another user, exists.
	_, err = e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-root", OauthProviders: []client.OauthProviderParams{
		{ProviderName: "ok", OidcClaims: &client.OidcClaims{Iss: "i", Sub: "other", Aud: "a"}},
		{ProviderName: "dup", OidcToken: jwt(`{"iss":"i","sub":"s","aud":"a"}`)}}})
	wantFailedActivity(t, err, 6, "already registered")
	if n := countProviders(e); n != 1 {
		t.Fatalf("%d providers after a failed create, want 1", n)
	}
	_, err = e.client.CreateOauthProviders(ctx, client.CreateOauthProvidersParams{UserID: "user-nobody", OauthProviders: []client.OauthProviderParams{{ProviderName: "p", OidcClaims: claims}}})
	wantFailedActivity(t, err, client.CodeNotFound, "user user-nobody not found")
	_, err = e.client.DeleteOauthProviders(ctx, client.DeleteOauthProvidersParams{UserID: "user-nobody", ProviderIDs: []string{aliceProvider}})
	wantFailedActivity(t, err, client.CodeNotFound, "user user-nobody not found")
	_, err = e.client.DeleteOauthProviders(ctx, client.DeleteOauthProvidersParams{UserID: "user-root", ProviderIDs: []string{aliceProvider}})
	wantFailedActivity(t, err, client.CodeNotFound, "OAuth provider "+aliceProvider+" not found for user user-root")
	_, err = e.client.DeleteOauthProviders(ctx, client.DeleteOauthProvidersParams{UserID: "user-alice", ProviderIDs: []string{aliceProvider, "missing"}})
	wantFailedActivity(t, err, client.CodeNotFound, "OAuth provider missing not found")
	if n := countProviders(e); n != 1 {
		t.Fatalf("%d providers after failed deletes, want 1", n)
	}
	_, err = e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: "user-nobody"})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusNotFound {
		t.Fatalf("get_oauth_providers of an unknown user: %v, want HTTP 404", err)
	}
}

func countProviders(e *testEmulator) int {
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	return len(e.srv.st.OauthProviders)
}

func TestOidcTokenParsing(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	good := jwt(`{"iss":"i","sub":"s","aud":"a"}`)
	for _, tt := range []struct{ name, token, want string }{
		{"two parts", enc([]byte(`{}`)) + "." + enc([]byte(`{"iss":"i","sub":"s","aud":"a"}`)), "three dot-separated base64url parts, got 2"},
		{"not base64url", "a+b." + strings.Split(good, ".")[1] + ".c", "part 1 is not non-empty base64url"},
		{"empty signature", strings.Join(strings.Split(good, ".")[:2], ".") + ".", "part 3"},
		{"header not JSON", enc([]byte("nope")) + "." + strings.SplitN(good, ".", 2)[1], "header is not a JSON object"},
		{"payload not JSON", jwt(`[1,2]`), "payload is not a JSON object"},
		{"no sub", jwt(`{"iss":"i","aud":"a"}`), "no sub claim"},
		{"iss not a string", jwt(`{"iss":7,"sub":"s","aud":"a"}`), "no iss claim"},
		{"empty aud array", jwt(`{"iss":"i","sub":"s","aud":[]}`), "no aud claim"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := oidcTokenIdentity(tt.token)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.token) {
				t.Fatal("the message quotes the token")
			}
		})
	}
	id, err := oidcTokenIdentity(good)
	if err != nil || id != (oidcIdentity{"i", "s", "a"}) {
		t.Fatalf("good token: %+v, %v", id, err)
	}
}

func TestOauthProviderValidation(t *testing.T) {
	e := newTestEmulator(t, withAlice)
	const typ = "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2"
	claims := `"oidcClaims":{"iss":"i","sub":"s","aud":"a"}`
	bad := jwt(`{"iss":"i","sub":"s"}`)
	for _, tt := range []struct{ name, params, want string }{
		{"missing userId", `{"oauthProviders":[{"providerName":"p",` + claims + `}]}`, "missing required field parameters.userId"},
		{"missing providers", `{"userId":"user-alice"}`, "missing required field parameters.oauthProviders"},
		{"missing providerName", `{"userId":"user-alice","oauthProviders":[{` + claims + `}]}`, "missing required field parameters.oauthProviders[0].providerName"},
		{"neither", `{"userId":"user-alice","oauthProviders":[{"providerName":"p"}]}`, "parameters.oauthProviders[0]: set exactly one of oidcToken and oidcClaims"},
		{"both", `{"userId":"user-alice","oauthProviders":[{"providerName":"p",` + claims + `},{"providerName":"q","oidcToken":"` + jwt(`{"iss":"x","sub":"y","aud":"z"}`) + `",` + claims + `}]}`,
			"parameters.oauthProviders[1]: set exactly one"},
		{"empty claim", `{"userId":"user-alice","oauthProviders":[{"providerName":"p","oidcClaims":{"iss":"i","sub":"","aud":"a"}}]}`, "parameters.oauthProviders[0].oidcClaims.sub"},
		{"bad token", `{"userId":"user-alice","oauthProviders":[{"providerName":"p","oidcToken":"` + bad + `"}]}`, "parameters.oauthProviders[0].oidcToken: the payload has no aud claim"},
		{"same identity twice", `{"userId":"user-alice","oauthProviders":[{"providerName":"p",` + claims + `},{"providerName":"q","oidcToken":"` + jwt(`{"iss":"i","sub":"s","aud":"a"}`) + `"}]}`,
			"oauthProviders[1]: same issuer, subject and audience as oauthProviders[0]"},
		{"unknown field", `{"userId":"user-alice","oauthProviders":[{"providerName":"p",` + claims + `,"clientId":"c"}]}`, `unknown field "clientId"`},
		{"wrong type", `{"userId":"user-alice","oauthProviders":{}}`, "wrong JSON type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := e.post(t, "/public/v1/submit/create_oauth_providers", submitBody(typ, tt.params), e.key)
			wantError(t, a, http.StatusBadRequest, tt.want)
			if strings.Contains(string(a.Raw), bad) {
				t.Fatal("the error quotes the token")
			}
		})
	}
	wantError(t, e.post(t, "/public/v1/submit/delete_oauth_providers", submitBody("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", `{"userId":"user-alice"}`), e.key),
		http.StatusBadRequest, "missing required field parameters.providerIds")
	wantError(t, e.post(t, "/public/v1/submit/delete_oauth_providers", submitBody("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", `{"userId":"user-alice","providerIds":["p","p"]}`), e.key),
		http.StatusBadRequest, "parameters.providerIds[1]")
	wantError(t, e.post(t, "/public/v1/query/get_oauth_providers", []byte(`{"organizationId":"org-test","user":"x"}`), e.key), http.StatusBadRequest, `unknown field "user"`)
}
