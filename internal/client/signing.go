package client

// SignRawPayloadParams are the parameters of sign_raw_payload (V2).
type SignRawPayloadParams struct {
	SignWith     string `json:"signWith"`
	Payload      string `json:"payload"`
	Encoding     string `json:"encoding"`     // PAYLOAD_ENCODING_...
	HashFunction string `json:"hashFunction"` // HASH_FUNCTION_...
}

// SignRawPayloadResult holds the ECDSA signature components.
type SignRawPayloadResult struct {
	R string `json:"r"`
	S string `json:"s"`
	V string `json:"v"`
}

// SignTransactionParams are the parameters of sign_transaction (V2).
type SignTransactionParams struct {
	SignWith            string `json:"signWith"`
	UnsignedTransaction string `json:"unsignedTransaction"`
	Type                string `json:"type"` // TRANSACTION_TYPE_...
}

// SignTransactionResult holds the signed transaction.
type SignTransactionResult struct {
	SignedTransaction string `json:"signedTransaction"`
}
