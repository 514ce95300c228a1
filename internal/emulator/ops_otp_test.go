package emulator

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

const (
	initOtpType     = "ACTIVITY_TYPE_INIT_OTP_V3"
	verifyOtpType   = "ACTIVITY_TYPE_VERIFY_OTP_V2"
	recoverUserType = "ACTIVITY_TYPE_RECOVER_USER"
)

// otpWantFailed checks that a submit ended FAILED with code and a
// message containing want.
func otpWantFailed(t *testing.T, err error, code int, want string) {
	t.Helper()
	var ae *client.ActivityError
	if !errors.As(err, &ae) || ae.Status != client.StatusFailed || ae.Failure == nil ||
		ae.Failure.Code != code || !strings.Contains(ae.Failure.Message, want) {
		t.Fatalf("err = %v, want a FAILED activity with code %d naming %q", err, code, want)
	}
}

// activityCount reads how many activities exist, under the server's lock.
func activityCount(e *testEmulator) int {
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	return len(e.srv.st.Activities)
}

// refuses checks that each body is a 400 naming the field and that no
// activity was created.
func refuses(t *testing.T, e *testEmulator, op, typ string, cases []struct{ params, want string }) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.want+" "+c.params, func(t *testing.T) {
			before := activityCount(e)
			wantError(t, e.post(t, "/public/v1/submit/"+op, submitBody(typ, c.params), e.key), http.StatusBadRequest, c.want)
			if after := activityCount(e); after != before {
				t.Fatalf("a refused submit created an activity (%d → %d)", before, after)
			}
		})
	}
}

func TestInitOtpRefusals(t *testing.T) {
	e := newTestEmulator(t)
	ok := `"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com","appName":"App"`
	refuses(t, e, "init_otp", initOtpType, []struct{ params, want string }{
		{`{"contact":"a@example.com","appName":"App"}`, "missing required field parameters.otpType"},
		{`{"otpType":"OTP_TYPE_EMAIL","appName":"App"}`, "missing required field parameters.contact"},
		{`{"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com"}`, "missing required field parameters.appName"},
		{`{"otpType":"OTP_TYPE_VOICE","contact":"+14155550100","appName":"App"}`, "field parameters.otpType"},
		{`{"otpType":"OTP_TYPE_EMAIL","contact":"+14155550100","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_EMAIL","contact":"a@b","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_SMS","contact":"a@example.com","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_SMS","contact":"14155550100","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_SMS","contact":"+123456","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_WHATSAPP","contact":"+1234567890123456","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_WHATSAPP","contact":"+0123456789","appName":"App"}`, "field parameters.contact"},
		{`{"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com","appName":" "}`, "field parameters.appName"},
		{`{` + ok + `,"otpLength":0}`, "field parameters.otpLength"},
		{`{` + ok + `,"otpLength":-3}`, "field parameters.otpLength"},
		{`{` + ok + `,"otpLength":10}`, "field parameters.otpLength"},
		{`{` + ok + `,"otpLength":6.5}`, "field parameters.otpLength"},
		{`{` + ok + `,"expirationSeconds":"601"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":"601"}`, "from 1 to 600"},
		{`{` + ok + `,"expirationSeconds":"0"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":"-5"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":"+5"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":"1.5"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":"99999999999999999999"}`, "field parameters.expirationSeconds"},
		{`{` + ok + `,"expirationSeconds":300}`, "field parameters.expirationSeconds: wrong JSON type"},
		{`{` + ok + `,"emailCustomization":{"logoUrl":"http://example.com/logo.png"}}`, "field parameters.emailCustomization.logoUrl"},
		{`{` + ok + `,"emailCustomization":{"logoUrl":"logo.png"}}`, "field parameters.emailCustomization.logoUrl"},
		{`{` + ok + `,"emailCustomization":{"templateVariables":"[1,2]"}}`, "field parameters.emailCustomization.templateVariables"},
		{`{` + ok + `,"emailCustomization":{"templateVariables":"name=x"}}`, "field parameters.emailCustomization.templateVariables"},
		{`{` + ok + `,"emailCustomization":{"templateVariables":"null"}}`, "field parameters.emailCustomization.templateVariables"},
		{`{` + ok + `,"sendFromEmailAddress":"notifications"}`, "field parameters.sendFromEmailAddress"},
		{`{` + ok + `,"replyToEmailAddress":"x@"}`, "field parameters.replyToEmailAddress"},
		{`{` + ok + `,"smsCustomisation":{}}`, `unknown field "smsCustomisation" in parameters`},
	})
}

func TestInitOtpRecordsTheFlow(t *testing.T) {
	intPtr := func(n int) *int { return &n }
	clock := testclock.New(time.Now())
	e := newTestEmulator(t, func(o *Options) { o.Now = clock.Now })
	for _, c := range []struct {
		params client.InitOtpParams
		expiry time.Duration
	}{
		{client.InitOtpParams{OtpType: "OTP_TYPE_EMAIL", Contact: "alice@example.com", AppName: "App"}, 5 * time.Minute},
		{client.InitOtpParams{OtpType: "OTP_TYPE_SMS", Contact: "+14155550100", AppName: "App", ExpirationSeconds: "600", OtpLength: intPtr(9)}, 600 * time.Second},
		{client.InitOtpParams{OtpType: "OTP_TYPE_WHATSAPP", Contact: "+441632960961", AppName: "App", ExpirationSeconds: "1", OtpLength: intPtr(1)}, time.Second},
		{client.InitOtpParams{OtpType: "OTP_TYPE_EMAIL", Contact: "bob@example.com", AppName: "App", ExpirationSeconds: "060",
			EmailCustomization:   &client.EmailCustomization{LogoURL: "https://example.com/logo.png", TemplateVariables: `{"name":"Bob"}`},
			SendFromEmailAddress: "no-reply@example.com", ReplyToEmailAddress: "help@example.com"}, time.Minute},
	} {
		got, err := e.client.InitOtp(t.Context(), c.params)
		if err != nil || got.Result.OtpID == "" || got.Result.OtpEncryptionTargetBundle == "" || got.Activity.Type != initOtpType {
			t.Fatalf("init_otp %+v: %+v, %v", c.params, got, err)
		}
		if _, ok := got.Activity.Intent["initOtpIntentV3"]; !ok {
			t.Fatalf("intent key: %v", got.Activity.Intent)
		}
		e.srv.mu.Lock()
		rec := e.srv.st.Otps[got.Result.OtpID]
		e.srv.mu.Unlock()
		if rec == nil || rec.Contact != c.params.Contact || !rec.ExpiresAt.Equal(clock.Now().Add(c.expiry)) {
			t.Fatalf("recorded %+v, want contact %s expiring in %s", rec, c.params.Contact, c.expiry)
		}
	}
}

func TestVerifyOtp(t *testing.T) {
	clock := testclock.New(time.Now())
	e := newTestEmulator(t, func(o *Options) { o.Now = clock.Now })
	refuses(t, e, "verify_otp", verifyOtpType, []struct{ params, want string }{
		{`{"encryptedOtpBundle":"b"}`, "missing required field parameters.otpId"},
		{`{"otpId":"o"}`, "missing required field parameters.encryptedOtpBundle"},
		{`{"otpId":"","encryptedOtpBundle":"b"}`, "field parameters.otpId must not be empty"},
		{`{"otpId":"o","encryptedOtpBundle":""}`, "field parameters.encryptedOtpBundle must not be empty"},
		{`{"otpId":"o","encryptedOtpBundle":"b","expirationSeconds":"86401"}`, "field parameters.expirationSeconds"},
		{`{"otpId":"o","encryptedOtpBundle":"b","expirationSeconds":"86401"}`, "from 1 to 86400"},
		{`{"otpId":"o","encryptedOtpBundle":"b","expirationSeconds":"0"}`, "field parameters.expirationSeconds"},
	})
	_, err := e.client.VerifyOtp(t.Context(), client.VerifyOtpParams{OtpID: "ghost-otp", EncryptedOtpBundle: "b"})
	otpWantFailed(t, err, client.CodeNotFound, "OTP ghost-otp not found")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown OTP must match client.ErrNotFound: %v", err)
	}
	otp, err := e.client.InitOtp(t.Context(), client.InitOtpParams{OtpType: "OTP_TYPE_EMAIL", Contact: "a@example.com", AppName: "App", ExpirationSeconds: "2"})
	if err != nil {
		t.Fatal(err)
	}
	// 86400 is the limit itself: accepted, so the activity runs (and fails
	// because the emulator cannot decrypt the bundle).
	_, err = e.client.VerifyOtp(t.Context(), client.VerifyOtpParams{OtpID: otp.Result.OtpID, EncryptedOtpBundle: "b", ExpirationSeconds: "86400"})
	otpWantFailed(t, err, client.CodeUnimplemented, "cannot decrypt encrypted OTP bundles")
	clock.Advance(2 * time.Second)
	_, err = e.client.VerifyOtp(t.Context(), client.VerifyOtpParams{OtpID: otp.Result.OtpID, EncryptedOtpBundle: "b"})
	otpWantFailed(t, err, client.CodeFailedPrecondition, "OTP "+otp.Result.OtpID+" expired")
}

func TestRecoverUser(t *testing.T) {
	e := newTestEmulator(t)
	good := func(att string) string {
		return `{"userId":"user-root","authenticator":{"authenticatorName":"key","challenge":"Y2g","attestation":` + att + `}}`
	}
	att := `{"credentialId":"Y3JlZA","clientDataJson":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0","attestationObject":"o2NmbXRkbm9uZQ==","transports":["AUTHENTICATOR_TRANSPORT_USB"]}`
	refuses(t, e, "recover_user", recoverUserType, []struct{ params, want string }{
		{`{"userId":"user-root"}`, "missing required field parameters.authenticator"},
		{`{"authenticator":{"authenticatorName":"key","challenge":"c","attestation":` + att + `}}`, "missing required field parameters.userId"},
		{`{"userId":"user-root","authenticator":{"challenge":"c","attestation":` + att + `}}`, "missing required field parameters.authenticator.authenticatorName"},
		{`{"userId":"user-root","authenticator":{"authenticatorName":"key","attestation":` + att + `}}`, "missing required field parameters.authenticator.challenge"},
		{`{"userId":"user-root","authenticator":{"authenticatorName":"key","challenge":"c"}}`, "missing required field parameters.authenticator.attestation"},
		{good(`{"clientDataJson":"e30","attestationObject":"e30","transports":[]}`), "missing required field parameters.authenticator.attestation.credentialId"},
		{good(`{"credentialId":"e30","attestationObject":"e30","transports":[]}`), "missing required field parameters.authenticator.attestation.clientDataJson"},
		{good(`{"credentialId":"e30","clientDataJson":"e30","transports":[]}`), "missing required field parameters.authenticator.attestation.attestationObject"},
		{good(`{"credentialId":"e30","clientDataJson":"e30","attestationObject":"e30"}`), "missing required field parameters.authenticator.attestation.transports"},
		{good(`{"credentialId":"e30","clientDataJson":"e30","attestationObject":"e30","transports":["USB"]}`), "field parameters.authenticator.attestation.transports[0]"},
		{good(`{"credentialId":"not base64!","clientDataJson":"e30","attestationObject":"e30","transports":[]}`), "field parameters.authenticator.attestation.credentialId"},
		{good(`{"credentialId":"e30","clientDataJson":"e3+/","attestationObject":"e30","transports":[]}`), "field parameters.authenticator.attestation.clientDataJson"},
		{good(`{"credentialId":"e30","clientDataJson":"e30","attestationObject":"","transports":[]}`), "field parameters.authenticator.attestation.attestationObject"},
		{`{"userId":"","authenticator":{"authenticatorName":"key","challenge":"c","attestation":` + att + `}}`, "field parameters.userId must not be empty"},
		{`{"userId":"user-root","authenticator":{"authenticatorName":"","challenge":"c","attestation":` + att + `}}`, "field parameters.authenticator.authenticatorName"},
		{`{"userId":"user-root","authenticator":{"authenticatorName":"key","challenge":"","attestation":` + att + `}}`, "field parameters.authenticator.challenge must not be empty"},
	})
	params := client.RecoverUserParams{UserID: "ghost-user", Authenticator: client.AuthenticatorParams{AuthenticatorName: "key", Challenge: "Y2g",
		Attestation: client.Attestation{CredentialID: "Y3JlZA", ClientDataJSON: "e30", AttestationObject: "o2NmbXRkbm9uZQ==",
			Transports: []string{"AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_HYBRID"}}}}
	_, err := e.client.RecoverUser(t.Context(), params)
	otpWantFailed(t, err, client.CodeNotFound, "user ghost-user not found")
	params.UserID = "user-root"
	_, err = e.client.RecoverUser(t.Context(), params)
	otpWantFailed(t, err, client.CodeUnimplemented, "does not verify WebAuthn attestations")
	// No transports is an answer a WebAuthn authenticator may give.
	params.Authenticator.Attestation.Transports = nil
	_, err = e.client.RecoverUser(t.Context(), params)
	otpWantFailed(t, err, client.CodeUnimplemented, "does not verify WebAuthn attestations")
}
