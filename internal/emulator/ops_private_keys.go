package emulator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
)

// Payload encodings of sign_raw_payload that the emulator decodes.
const (
	encodingHex    = "PAYLOAD_ENCODING_HEXADECIMAL"
	encodingEIP712 = payload.EncodingEIP712
)

var (
	payloadEncodings = []string{encodingHex, "PAYLOAD_ENCODING_TEXT_UTF8", encodingEIP712, "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"}
	hashFunctions    = []string{hashNoOp, hashSHA256, hashKeccak256, hashNotApplicable}
)

func init() {
	registerSubmit(client.OpCreatePrivateKeys,
		[]string{"privateKeys", "privateKeys[].privateKeyName", "privateKeys[].curve", "privateKeys[].privateKeyTags", "privateKeys[].addressFormats"},
		validateCreatePrivateKeys, runCreatePrivateKeys)
	registerQuery(client.QueryListPrivateKeys, nil, func(s *Server, _ *caller, _ *client.ListPrivateKeysRequest) (any, *apiError) {
		out := []client.PrivateKey{}
		for _, k := range s.st.PrivateKeys {
			out = append(out, client.PrivateKey{PrivateKeyID: k.PrivateKeyID, PublicKey: k.PublicKey, PrivateKeyName: k.PrivateKeyName,
				Curve: k.Curve, Addresses: nonNilSlice(slices.Clone(k.Addresses)), PrivateKeyTags: nonNilSlice(slices.Clone(k.Tags)),
				CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt})
		}
		slices.SortFunc(out, func(a, b client.PrivateKey) int {
			return byCreatedThenID(a.CreatedAt, b.CreatedAt, a.PrivateKeyID, b.PrivateKeyID)
		})
		return client.ListPrivateKeysResponse{PrivateKeys: out}, nil
	})
	registerSubmit(client.OpSignRawPayload,
		[]string{"signWith", "payload", "encoding", "hashFunction"}, validateSignRawPayload, runSignRawPayload)
}

func validateCreatePrivateKeys(p *client.CreatePrivateKeysParams) *apiError {
	if len(p.PrivateKeys) == 0 {
		return errInvalid("field parameters.privateKeys must list at least one key")
	}
	names := map[string]int{}
	for i, k := range p.PrivateKeys {
		at := fmt.Sprintf("parameters.privateKeys[%d]", i)
		if e := checkName(at+".privateKeyName", k.PrivateKeyName); e != nil {
			return e
		}
		if j, dup := names[k.PrivateKeyName]; dup {
			return errInvalid("field %s.privateKeyName: %q is also the name of privateKeys[%d]; names are unique", at, k.PrivateKeyName, j)
		}
		names[k.PrivateKeyName] = i
		if e := oneOf(at+".curve", k.Curve, keyCurves...); e != nil {
			return e
		}
		if e := checkUniqueIDs(at+".privateKeyTags", k.PrivateKeyTags); e != nil {
			return e
		}
		for j, f := range k.AddressFormats {
			if e := checkAddressFormat(fmt.Sprintf("%s.addressFormats[%d]", at, j), k.Curve, f); e != nil {
				return e
			}
		}
		if e := checkUniqueIDs(at+".addressFormats", k.AddressFormats); e != nil {
			return e
		}
	}
	return nil
}

func runCreatePrivateKeys(s *Server, _ *caller, p *client.CreatePrivateKeysParams) (any, *client.Status) {
	// Check everything before changing anything: a failed activity leaves
	// no partial keys behind.
	for _, k := range p.PrivateKeys {
		for _, existing := range s.st.PrivateKeys {
			if existing.PrivateKeyName == k.PrivateKeyName {
				return nil, failure(client.CodeAlreadyExists, "a private key named %q already exists (%s)", k.PrivateKeyName, existing.PrivateKeyID)
			}
		}
		for _, tagID := range k.PrivateKeyTags {
			if s.privateKeyTag(tagID) == nil {
				return nil, notFound("private key tag %s not found", tagID)
			}
		}
	}
	now := client.NewTimestamp(s.now())
	var records []*privateKeyRecord
	for _, k := range p.PrivateKeys {
		kp, err := generateKeyPair(k.Curve)
		if err != nil {
			return nil, failure(client.CodeInternal, "generating a %s key: %v", k.Curve, err)
		}
		rec := &privateKeyRecord{PrivateKeyID: newID(), PrivateKeyName: k.PrivateKeyName, Curve: k.Curve, PublicKey: kp.publicKeyHex(),
			Secret: kp.secretHex(), Addresses: []client.Address{}, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
		for _, f := range k.AddressFormats {
			a, err := kp.address(f)
			if err != nil {
				return nil, failure(client.CodeInternal, "deriving an address: %v", err)
			}
			rec.Addresses = append(rec.Addresses, client.Address{Format: f, Address: a})
		}
		records = append(records, rec)
	}
	result := client.CreatePrivateKeysResult{PrivateKeys: []client.CreatedPrivateKey{}}
	for i, rec := range records {
		s.st.PrivateKeys[rec.PrivateKeyID] = rec
		for _, tagID := range p.PrivateKeys[i].PrivateKeyTags {
			tagAddKey(s.privateKeyTag(tagID), rec, now)
		}
		result.PrivateKeys = append(result.PrivateKeys, client.CreatedPrivateKey{PrivateKeyID: rec.PrivateKeyID, Addresses: slices.Clone(rec.Addresses)})
	}
	return result, nil
}

func checkSignWith(v string) *apiError {
	if strings.TrimSpace(v) == "" {
		return errInvalid("field parameters.signWith must name a private key id or one of its addresses")
	}
	return nil
}

func validateSignRawPayload(p *client.SignRawPayloadParams) *apiError {
	if e := checkSignWith(p.SignWith); e != nil {
		return e
	}
	if e := oneOf("parameters.encoding", p.Encoding, payloadEncodings...); e != nil {
		return e
	}
	if e := oneOf("parameters.hashFunction", p.HashFunction, hashFunctions...); e != nil {
		return e
	}
	switch p.Encoding {
	case encodingHex:
		if _, err := payload.DecodeHex(p.Payload); err != nil {
			return errInvalid("field parameters.payload: with %s it must be hexadecimal (an optional 0x, then an even number of hex digits): %v", encodingHex, err)
		}
	case encodingEIP712:
		// The encoding defines the digest (the EIP-712 hash), so no
		// other hash function applies.
		if p.HashFunction != hashNotApplicable {
			return errInvalid("field parameters.hashFunction: with %s the payload is hashed as EIP-712 defines, so it must be %s, not %s",
				encodingEIP712, hashNotApplicable, p.HashFunction)
		}
		if _, err := payload.DecodeEIP712(p.Payload); err != nil {
			return errInvalid("field parameters.payload: with %s it %v", encodingEIP712, err)
		}
	}
	return nil
}

func runSignRawPayload(s *Server, _ *caller, p *client.SignRawPayloadParams) (any, *client.Status) {
	rec := s.signer(p.SignWith)
	if rec == nil {
		return nil, notFound("no private key with id or address %s", p.SignWith)
	}
	var msg []byte
	hashFunction := p.HashFunction
	switch p.Encoding {
	case encodingHex:
		msg, _ = payload.DecodeHex(p.Payload) // checked at submit
	case "PAYLOAD_ENCODING_TEXT_UTF8":
		msg = []byte(p.Payload)
	case encodingEIP712:
		if st := notSecp256k1(rec, "EIP-712 typed data is signed"); st != nil {
			return nil, st
		}
		typed, err := payload.DecodeEIP712(p.Payload) // checked at submit
		if err != nil {
			return nil, failure(client.CodeInternal, "decoding the stored payload: %v", err)
		}
		// The key signs the EIP-712 hash itself.
		msg, hashFunction = typed.Hash(), hashNoOp
	default:
		return nil, failure(client.CodeUnimplemented, "the emulator does not implement the %s encoding; hash the message yourself and sign it with PAYLOAD_ENCODING_HEXADECIMAL and HASH_FUNCTION_NO_OP", p.Encoding)
	}
	kp, err := loadKeyPair(rec.Curve, rec.Secret)
	if err != nil {
		return nil, failure(client.CodeInternal, "private key %s: %v", rec.PrivateKeyID, err)
	}
	sig, err := kp.sign(msg, hashFunction)
	switch {
	case errors.Is(err, errSignRequest):
		return nil, failure(client.CodeInvalidArgument, "private key %s (%s): %v", rec.PrivateKeyID, rec.Curve, err)
	case err != nil:
		return nil, failure(client.CodeInternal, "signing with private key %s: %v", rec.PrivateKeyID, err)
	}
	return client.SignRawPayloadResult{R: sig.r, S: sig.s, V: sig.v}, nil
}

// notSecp256k1 refuses to sign with rec what only secp256k1 keys sign
// (what says which, e.g. "Ethereum transactions are signed"); nil when rec
// is a secp256k1 key.
func notSecp256k1(rec *privateKeyRecord, what string) *client.Status {
	if rec.Curve == curveSecp256k1 {
		return nil
	}
	return failure(client.CodeInvalidArgument, "private key %s is a %s key; %s with %s keys", rec.PrivateKeyID, rec.Curve, what, curveSecp256k1)
}

// signer finds a key by id or by one of its addresses. Hex addresses match
// in any letter case (an Ethereum address may arrive without its EIP-55
// capitals); base58 (Solana) is case-sensitive.
func (s *Server) signer(signWith string) *privateKeyRecord {
	if rec, ok := s.st.PrivateKeys[signWith]; ok {
		return rec
	}
	for _, rec := range s.st.PrivateKeys {
		for _, a := range rec.Addresses {
			if a.Address == signWith || (a.Format != addressSolana && strings.EqualFold(a.Address, signWith)) {
				return rec
			}
		}
	}
	return nil
}

// checkUniqueIDs refuses a list that names the same value twice: such a
// request is ambiguous, so it is a 400 rather than silently deduplicated.
func checkUniqueIDs(field string, ids []string) *apiError {
	seen := map[string]int{}
	for i, id := range ids {
		if j, dup := seen[id]; dup {
			return errInvalid("field %s[%d]: %q is already listed at index %d", field, i, id, j)
		}
		seen[id] = i
	}
	return nil
}

// byCreatedThenID orders records by creation time, ties broken by id, so
// that lists are deterministic.
func byCreatedThenID(a, b client.Timestamp, aID, bID string) int {
	ta, _ := a.Time()
	tb, _ := b.Time()
	if c := ta.Compare(tb); c != 0 {
		return c
	}
	return cmp.Compare(aID, bID)
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
