package emulator

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Limits of spec section 8, and the emulator's own bound on otpLength: the
// spec gives only its default (9), so the emulator refuses what cannot be
// a code length (0 or less) and what exceeds that default.
const (
	otpDefaultExpiration  = 5 * time.Minute
	otpMaxExpirationSecs  = 600
	verifyMaxTokenSeconds = 86400
	otpMaxLength          = 9
)

var (
	otpTypes = []string{"OTP_TYPE_SMS", "OTP_TYPE_EMAIL", "OTP_TYPE_WHATSAPP"}
	// emailShape is deliberately loose (one @, a dot in the domain, no
	// spaces): it catches a phone number or a typo, not every RFC 5322 rule.
	emailShape = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	// e164Shape is an E.164 number: +, a non-zero country code digit, 7 to
	// 15 digits in all.
	e164Shape = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	// authenticatorTransports are the transports of spec 4.1.2.
	authenticatorTransports = []string{"AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL",
		"AUTHENTICATOR_TRANSPORT_NFC", "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID"}
)

func init() {
	registerSubmit(client.OpInitOtp,
		[]string{"otpType", "contact", "appName"}, validateInitOtp, runInitOtp)
	registerSubmit(client.OpVerifyOtp,
		[]string{"otpId", "encryptedOtpBundle"}, validateVerifyOtp, runVerifyOtp)
	registerSubmit(client.OpRecoverUser,
		[]string{"authenticator.authenticatorName", "authenticator.challenge", "authenticator.attestation.credentialId",
			"authenticator.attestation.clientDataJson", "authenticator.attestation.attestationObject",
			"authenticator.attestation.transports", "userId"},
		validateRecoverUser, runRecoverUser)
}

func validateInitOtp(p *client.InitOtpParams) *apiError {
	if e := oneOf("parameters.otpType", p.OtpType, otpTypes...); e != nil {
		return e
	}
	if p.OtpType == "OTP_TYPE_EMAIL" && !emailShape.MatchString(p.Contact) {
		return errInvalid("field parameters.contact: %q is not an email address, which OTP_TYPE_EMAIL needs", p.Contact)
	}
	if p.OtpType != "OTP_TYPE_EMAIL" && !e164Shape.MatchString(p.Contact) {
		return errInvalid("field parameters.contact: %q is not an E.164 phone number (+ and 7 to 15 digits), which %s needs", p.Contact, p.OtpType)
	}
	if e := checkName("parameters.appName", p.AppName); e != nil {
		return e
	}
	if p.OtpLength != nil && (*p.OtpLength < 1 || *p.OtpLength > otpMaxLength) {
		return errInvalid("field parameters.otpLength: %d is out of range; the emulator accepts 1 to %d (the spec gives only the default, %d)",
			*p.OtpLength, otpMaxLength, otpMaxLength)
	}
	if _, e := decimalSeconds("parameters.expirationSeconds", p.ExpirationSeconds, otpMaxExpirationSecs); e != nil {
		return e
	}
	for _, f := range []struct{ name, v string }{{"sendFromEmailAddress", p.SendFromEmailAddress}, {"replyToEmailAddress", p.ReplyToEmailAddress}} {
		if f.v != "" && !emailShape.MatchString(f.v) {
			return errInvalid("field parameters.%s: %q is not an email address", f.name, f.v)
		}
	}
	if c := p.EmailCustomization; c != nil {
		if u, err := url.Parse(c.LogoURL); c.LogoURL != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
			return errInvalid("field parameters.emailCustomization.logoUrl: %q is not an https URL", c.LogoURL)
		}
		var vars map[string]any
		if c.TemplateVariables != "" && (json.Unmarshal([]byte(c.TemplateVariables), &vars) != nil || vars == nil) {
			return errInvalid("field parameters.emailCustomization.templateVariables: must be a string holding a JSON object of key/value pairs")
		}
	}
	return nil
}

// decimalSeconds reads an optional count of seconds sent as a decimal
// string (0 when absent) and enforces 1..max.
func decimalSeconds(field, v string, limit int) (int, *apiError) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || strings.TrimLeft(v, "0123456789") != "" || n < 1 || n > limit {
		return 0, errInvalid("field %s: %q must be a whole number of seconds from 1 to %d (the limit)", field, v, limit)
	}
	return n, nil
}

// runInitOtp records the OTP flow. The emulator sends no message: there is
// no code to read, so the flow can only be verified by a real service.
func runInitOtp(s *Server, _ *caller, p *client.InitOtpParams) (any, *client.Status) {
	expiry := otpDefaultExpiration
	if n, _ := decimalSeconds("", p.ExpirationSeconds, otpMaxExpirationSecs); n > 0 {
		expiry = time.Duration(n) * time.Second
	}
	rec := &otpRecord{OtpID: newID(), Contact: p.Contact, ExpiresAt: s.now().Add(expiry)}
	s.st.Otps[rec.OtpID] = rec
	// The real bundle carries a key of the service's enclave to encrypt the
	// code to; the emulator's is random bytes, opaque to clients.
	bundle := make([]byte, 32)
	_, _ = rand.Read(bundle)
	return client.InitOtpResult{OtpID: rec.OtpID, OtpEncryptionTargetBundle: hex.EncodeToString(bundle)}, nil
}

func validateVerifyOtp(p *client.VerifyOtpParams) *apiError {
	if e := nonEmptyField("parameters.otpId", p.OtpID); e != nil {
		return e
	}
	if e := nonEmptyField("parameters.encryptedOtpBundle", p.EncryptedOtpBundle); e != nil {
		return e
	}
	_, e := decimalSeconds("parameters.expirationSeconds", p.ExpirationSeconds, verifyMaxTokenSeconds)
	return e
}

// runVerifyOtp fails honestly: the code is encrypted (HPKE) to a key of the
// service's enclave, which the emulator does not have, so accepting any
// bundle would let a broken client pass.
func runVerifyOtp(s *Server, _ *caller, p *client.VerifyOtpParams) (any, *client.Status) {
	rec, ok := s.st.Otps[p.OtpID]
	if !ok {
		return nil, notFound("OTP %s not found: start a flow with init_otp", p.OtpID)
	}
	if !s.now().Before(rec.ExpiresAt) {
		return nil, failure(client.CodeFailedPrecondition, "OTP %s expired at %s; start a new flow with init_otp", p.OtpID, rec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil, failure(client.CodeUnimplemented, "the emulator cannot decrypt encrypted OTP bundles (HPKE to the enclave key); verify_otp is validated but not executed")
}

func validateRecoverUser(p *client.RecoverUserParams) *apiError {
	if e := nonEmptyField("parameters.userId", p.UserID); e != nil {
		return e
	}
	a := p.Authenticator
	if e := checkName("parameters.authenticator.authenticatorName", a.AuthenticatorName); e != nil {
		return e
	}
	if e := nonEmptyField("parameters.authenticator.challenge", a.Challenge); e != nil {
		return e
	}
	// Spec 2.3: the attestation's three strings are base64url.
	for _, f := range []struct{ name, v string }{
		{"credentialId", a.Attestation.CredentialID},
		{"clientDataJson", a.Attestation.ClientDataJSON},
		{"attestationObject", a.Attestation.AttestationObject},
	} {
		if _, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(f.v, "=")); f.v == "" || err != nil {
			return errInvalid("field parameters.authenticator.attestation.%s: must be a non-empty base64url string", f.name)
		}
	}
	for i, tr := range a.Attestation.Transports {
		if e := oneOf(sprintf("parameters.authenticator.attestation.transports[%d]", i), tr, authenticatorTransports...); e != nil {
			return e
		}
	}
	return nil
}

// runRecoverUser fails honestly after checking the user: creating the
// authenticator would need a verified WebAuthn attestation.
func runRecoverUser(s *Server, _ *caller, p *client.RecoverUserParams) (any, *client.Status) {
	if s.st.userByID(p.UserID) == nil {
		return nil, notFound("user %s not found in organization %s", p.UserID, s.st.Organization.ID)
	}
	return nil, failure(client.CodeUnimplemented, "the emulator does not verify WebAuthn attestations; recover_user is validated but not executed")
}
