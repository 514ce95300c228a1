package emulator

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// caller is who sent a verified request, and for which organization.
type caller struct {
	UserID         string
	PublicKey      string
	OrganizationID string // the organization named in the body
	SubOrg         bool   // the body names a sub-organization of ours
	RemoteAddr     string
	// Body and Signature are the body the caller signed and the stamp's
	// signature of it: a vote the request casts records them, as the
	// reference's vote does ("the raw message being signed").
	Body      []byte
	Signature string
}

// authenticate verifies the stamp over the exact body, finds the key's user
// in the organization the body names, and applies the IP allowlist.
func (s *Server) authenticate(r *http.Request, body []byte) (*caller, *apiError) {
	stamp := r.Header.Get(client.StampHeader)
	if stamp == "" {
		if r.Header.Get("X-Stamp-WebAuthn") != "" {
			return nil, errUnauthenticated("X-Stamp-WebAuthn: the emulator does not verify passkey (WebAuthn) stamps; use an API key stamp in X-Stamp")
		}
		return nil, errUnauthenticated("missing X-Stamp header: every query and submit must be stamped with an API key")
	}
	pub, sig, apiErr := verifyStamp(stamp, body)
	if apiErr != nil {
		return nil, apiErr
	}
	var head struct {
		OrganizationID *string `json:"organizationId"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, errInvalid("request body is not a JSON object: %v", err)
	}
	if head.OrganizationID == nil || *head.OrganizationID == "" {
		return nil, errInvalid("organizationId is required")
	}
	org := *head.OrganizationID
	sub := false
	if org != s.st.Organization.ID {
		if _, ok := s.st.SubOrganizations[org]; !ok {
			return nil, errDenied("API key %s is not registered in organization %s", pub, org)
		}
		sub = true // a parent organization's keys may act on its sub-organizations
	}
	user := s.st.userByKey(pub)
	if user == nil {
		return nil, errDenied("API key %s belongs to no user of organization %s", pub, org)
	}
	who := &caller{UserID: user.UserID, PublicKey: pub, OrganizationID: org, SubOrg: sub, RemoteAddr: r.RemoteAddr,
		Body: body, Signature: sig}
	if apiErr := s.enforceAllowlist(who); apiErr != nil {
		return nil, apiErr
	}
	return who, nil
}

// verifyStamp checks an API-key stamp independently of the client's code:
// base64url (unpadded) JSON {publicKey, scheme, signature}, and an ECDSA
// P-256 DER signature over SHA-256 of the body. It returns the key and
// the signature (hex).
func verifyStamp(header string, body []byte) (pubHex, signature string, _ *apiError) {
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return "", "", errUnauthenticated("malformed X-Stamp: not base64url without padding")
	}
	var st struct {
		PublicKey string `json:"publicKey"`
		Scheme    string `json:"scheme"`
		Signature string `json:"signature"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return "", "", errUnauthenticated("malformed X-Stamp: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", "", errUnauthenticated("malformed X-Stamp: unexpected data after the JSON object")
	}
	if st.Scheme != client.StampSchemeP256 {
		return "", "", errUnauthenticated("unsupported stamp scheme %q: the emulator verifies %s", st.Scheme, client.StampSchemeP256)
	}
	pubHex = strings.ToLower(st.PublicKey)
	pub, err := client.ParsePublicKey(pubHex)
	if err != nil {
		return "", "", errUnauthenticated("malformed X-Stamp: %v", err)
	}
	sig, err := hex.DecodeString(st.Signature)
	if err != nil || len(sig) == 0 {
		return "", "", errUnauthenticated("malformed X-Stamp: signature is not hex")
	}
	digest := sha256.Sum256(body)
	if !ecdsa.VerifyASN1(pub, digest[:], sig) {
		return "", "", errUnauthenticated("X-Stamp signature does not verify over the request body (sign the exact bytes you send)")
	}
	return pubHex, strings.ToLower(st.Signature), nil
}

// enforceAllowlist refuses a caller whose address is outside the allowlist
// that applies to its key: the key's own allowlist if it has one, else the
// organization's when enabled.
func (s *Server) enforceAllowlist(who *caller) *apiError {
	list, scope := s.st.Allowlists[who.PublicKey], "API key "+who.PublicKey
	if list == nil {
		list, scope = s.st.Allowlists[orgAllowlistKey], "organization "+s.st.Organization.ID
		if list == nil || !list.Enabled {
			return nil
		}
	}
	host, _, err := net.SplitHostPort(who.RemoteAddr)
	if err != nil {
		host = who.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		if list.OnEvaluationError == client.OnEvaluationErrorAllow {
			return nil
		}
		return errDenied("the IP allowlist of %s could not evaluate address %q and onEvaluationError is DENY", scope, who.RemoteAddr)
	}
	addr = addr.Unmap()
	for _, rule := range list.Rules {
		if p, err := netip.ParsePrefix(rule.CIDR); err == nil && p.Contains(addr) {
			return nil
		}
	}
	return errDenied("IP address %s is not in the IP allowlist of %s", addr, scope)
}
