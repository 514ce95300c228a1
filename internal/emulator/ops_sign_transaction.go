package emulator

import (
	"encoding/hex"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
)

// Transaction types of sign_transaction.
const txTypeEthereum = payload.TxTypeEthereum

var transactionTypes = []string{txTypeEthereum, "TRANSACTION_TYPE_SOLANA", "TRANSACTION_TYPE_TRON", "TRANSACTION_TYPE_BITCOIN", "TRANSACTION_TYPE_TEMPO"}

func init() {
	registerSubmit(client.OpSignTransaction, []string{"signWith", "unsignedTransaction", "type"}, validateSignTransaction, runSignTransaction)
}

// validateSignTransaction decodes an Ethereum transaction at submit, so
// that one that does not decode is a 400 and no activity. The other
// chains' transactions are not decoded (see runSignTransaction).
func validateSignTransaction(p *client.SignTransactionParams) *apiError {
	if e := checkSignWith(p.SignWith); e != nil {
		return e
	}
	if e := oneOf("parameters.type", p.Type, transactionTypes...); e != nil {
		return e
	}
	if p.Type == txTypeEthereum {
		if _, err := payload.DecodeEthTx(p.UnsignedTransaction); err != nil {
			return errInvalid("field parameters.unsignedTransaction: %v", err)
		}
	}
	return nil
}

// runSignTransaction signs once the policies allow it (at submit, or at
// the approval that completes the activity). The result is the signed
// transaction in hex without 0x, as the emulator's other hex results
// (signatures, public keys) are.
func runSignTransaction(s *Server, _ *caller, p *client.SignTransactionParams) (any, *client.Status) {
	rec := s.signer(p.SignWith)
	if rec == nil {
		return nil, notFound("no private key with id or address %s", p.SignWith)
	}
	if p.Type != txTypeEthereum {
		// Honest rather than a fake: the emulator parses and signs
		// Ethereum transactions only.
		return nil, failure(client.CodeUnimplemented, "the emulator builds signed transactions for %s only, not %s; use sign_raw_payload to test signing",
			txTypeEthereum, p.Type)
	}
	if st := notSecp256k1(rec, "Ethereum transactions are signed"); st != nil {
		return nil, st
	}
	tx, err := payload.DecodeEthTx(p.UnsignedTransaction) // checked at submit
	if err != nil {
		return nil, failure(client.CodeInternal, "decoding the stored transaction: %v", err)
	}
	secret, err := hex.DecodeString(rec.Secret)
	if err != nil {
		return nil, failure(client.CodeInternal, "private key %s: stored secret is not hex", rec.PrivateKeyID)
	}
	signed, err := tx.Sign(secret)
	if err != nil {
		return nil, failure(client.CodeInternal, "signing with private key %s: %v", rec.PrivateKeyID, err)
	}
	return client.SignTransactionResult{SignedTransaction: hex.EncodeToString(signed)}, nil
}

// ethereumAddressOf is the Ethereum address of a secp256k1 key, lower-case
// as policies compare it (reference §9), whether or not the key was
// created with that address format; "" for other curves.
func ethereumAddressOf(rec *privateKeyRecord) string {
	if rec.Curve != curveSecp256k1 {
		return ""
	}
	kp, err := loadKeyPair(rec.Curve, rec.Secret)
	if err != nil {
		return ""
	}
	return strings.ToLower(ethereumAddress(kp.uncompressed()[1:]))
}
