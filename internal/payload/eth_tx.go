// Package payload decodes what a signing activity carries (an unsigned
// Ethereum transaction, EIP-712 typed data) into the keywords policies
// read (eth.tx, eth.eip_712). The emulator decodes a submitted activity
// with it, and the provider's replay decodes a listed one: one decoder,
// so that both see the same request.
package payload

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// Decoding sign_transaction's unsignedTransaction for TRANSACTION_TYPE_ETHEREUM
// and signing it. The unsigned forms are those wallets and libraries
// serialize before signing:
//   - legacy: rlp([nonce, gasPrice, gas, to, value, data]) before EIP-155,
//     or rlp([..., chainId, 0, 0]) with EIP-155 replay protection;
//   - typed (EIP-2718): type byte || rlp([fields]), without the
//     signature's yParity, r, s; types 1 (EIP-2930), 2 (EIP-1559), 3
//     (EIP-4844, canonical form without blobs) and 4 (EIP-7702).
// A typed transaction with a zero signature (yParity, r, s all 0) is
// accepted too, since some tools fill the fields; one that carries a
// signature is refused: it is not an unsigned transaction.

// TxTypeEthereum is sign_transaction's type of an Ethereum transaction.
const TxTypeEthereum = "TRANSACTION_TYPE_ETHEREUM"

// EthTx is a decoded unsigned Ethereum transaction.
type EthTx struct {
	tx *types.Transaction // unsigned
	// chainID is what the transaction is signed for; nil for a legacy
	// transaction without EIP-155 replay protection.
	chainID *big.Int
}

// legacyUnsigned is a legacy transaction as serialized for signing: six
// fields, or nine with EIP-155's (chainId, 0, 0).
type legacyUnsigned struct {
	Nonce    uint64
	GasPrice *big.Int
	Gas      uint64
	To       *common.Address `rlp:"nil"`
	Value    *big.Int
	Data     []byte
	V, R, S  *big.Int `rlp:"optional"`
}

// typedUnsignedFields is how many fields each typed transaction has
// without its signature.
var typedUnsignedFields = map[byte]int{
	types.AccessListTxType: 8,  // chainId, nonce, gasPrice, gas, to, value, data, accessList
	types.DynamicFeeTxType: 9,  // chainId, nonce, tip cap, fee cap, gas, to, value, data, accessList
	types.BlobTxType:       11, // ... accessList, maxFeePerBlobGas, blobVersionedHashes
	types.SetCodeTxType:    10, // ... accessList, authorizationList
}

// ethTxTypeNames are eth.tx.type's values (reference §8.6), by
// transaction type.
var ethTxTypeNames = map[byte]string{
	types.LegacyTxType: "LEGACY", types.AccessListTxType: "TYPE_1", types.DynamicFeeTxType: "TYPE_2",
	types.BlobTxType: "TYPE_3", types.SetCodeTxType: "TYPE_4",
}

// DecodeEthTx decodes unsignedTransaction: hex with or without 0x. Its
// errors say what is wrong, for a 400 that names the field.
func DecodeEthTx(s string) (*EthTx, error) {
	if s == "" {
		return nil, errors.New("is empty; it must be the hex of an unsigned Ethereum transaction")
	}
	b, err := DecodeHex(s)
	if err != nil {
		return nil, fmt.Errorf("is not hexadecimal (an optional 0x, then an even number of hex digits): %v", err)
	}
	if len(b) == 0 {
		return nil, errors.New("is empty; it must be the hex of an unsigned Ethereum transaction")
	}
	if b[0] >= 0xc0 { // an RLP list: a legacy transaction
		return decodeLegacy(b)
	}
	if _, ok := typedUnsignedFields[b[0]]; ok {
		return decodeTyped(b)
	}
	return nil, fmt.Errorf("begins with byte 0x%02x, which is neither an RLP list (a legacy transaction) nor a transaction type "+
		"this decoder reads (0x01 EIP-2930, 0x02 EIP-1559, 0x03 EIP-4844, 0x04 EIP-7702)", b[0])
}

func decodeLegacy(b []byte) (*EthTx, error) {
	var f legacyUnsigned
	if err := rlp.DecodeBytes(b, &f); err != nil {
		return nil, fmt.Errorf("is not a legacy transaction's RLP (nonce, gasPrice, gas, to, value, data[, chainId, 0, 0]): %v", err)
	}
	out := &EthTx{tx: types.NewTx(&types.LegacyTx{Nonce: f.Nonce, GasPrice: f.GasPrice, Gas: f.Gas, To: f.To, Value: f.Value, Data: f.Data})}
	switch {
	case f.V == nil:
		// Six fields: no replay protection.
	case f.R == nil || f.S == nil:
		return nil, errors.New("is a legacy transaction with 7 or 8 fields; it has 6 (before EIP-155) or 9 (EIP-155: chainId, 0, 0)")
	case f.R.Sign() != 0 || f.S.Sign() != 0:
		return nil, errors.New("is a signed legacy transaction (its r and s are not 0); send the unsigned transaction")
	case f.V.Sign() != 0:
		out.chainID = f.V // EIP-155: the chain id in v's place, r = s = 0
	}
	return out, nil
}

func decodeTyped(b []byte) (*EthTx, error) {
	typ, want := b[0], typedUnsignedFields[b[0]]
	name := fmt.Sprintf("a type-%d (%s) transaction", typ, ethTxTypeNames[typ])
	var items []rlp.RawValue
	if err := rlp.DecodeBytes(b[1:], &items); err != nil {
		return nil, fmt.Errorf("begins with 0x%02x but the rest is not %s's RLP list: %v", typ, name, err)
	}
	if typ == types.BlobTxType && len(items) > 0 && len(items[0]) > 0 && items[0][0] >= 0xc0 {
		return nil, errors.New("is a blob transaction in its network form, with blobs; the decoder reads the canonical form without them")
	}
	signed := false
	switch len(items) {
	case want:
		// The signature's yParity, r and s are zero until signed.
		items = append(items, rlp.RawValue{0x80}, rlp.RawValue{0x80}, rlp.RawValue{0x80})
	case want + 3:
		signed = true
	default:
		return nil, fmt.Errorf("is %s with %d fields; unsigned it has %d", name, len(items), want)
	}
	body, err := rlp.EncodeToBytes(items)
	if err != nil {
		return nil, fmt.Errorf("re-encoding %s: %v", name, err)
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(append([]byte{typ}, body...)); err != nil {
		return nil, fmt.Errorf("is not a valid %s: %v", name, err)
	}
	if v, r, s := tx.RawSignatureValues(); signed && (v.Sign() != 0 || r.Sign() != 0 || s.Sign() != 0) {
		return nil, fmt.Errorf("is a signed %s (its signature is not zero); send the unsigned transaction", name)
	}
	if tx.ChainId().Sign() == 0 {
		// go-ethereum's signers take no chain 0 (they panic), and a
		// typed transaction always names its chain.
		return nil, fmt.Errorf("is %s for chain id 0; a typed transaction names the chain it is for", name)
	}
	return &EthTx{tx: tx, chainID: tx.ChainId()}, nil
}

// Keyword is the transaction as eth.tx (reference §7.3, §9), from the
// address of the key that signs it ("" when the key has none, which
// leaves from out). Integers are *big.Int, addresses and data lower-case
// hex. The interface has no ABI upload (smart contract interfaces), so
// function_name is "" and function_signature and contract_call_args are
// absent, as the service has them for a contract without an ABI.
func (t *EthTx) Keyword(from string) map[string]any {
	tx := t.tx
	m := map[string]any{
		"to":            "",
		"data":          "0x" + hex.EncodeToString(tx.Data()),
		"type":          ethTxTypeNames[tx.Type()],
		"function_name": "",
	}
	if from != "" {
		m["from"] = strings.ToLower(from)
	}
	if to := tx.To(); to != nil {
		m["to"] = strings.ToLower(to.Hex())
	}
	chainID := t.chainID
	if chainID == nil {
		// Before EIP-155 a legacy transaction names no chain: 0, so that
		// eth.tx.chain_id == 1 is false for it (and a deny on
		// chain_id != 1 applies) rather than an evaluation error.
		chainID = new(big.Int)
	}
	ints := map[string]*big.Int{
		"value": tx.Value(), "gas": new(big.Int).SetUint64(tx.Gas()), "nonce": new(big.Int).SetUint64(tx.Nonce()),
		"chain_id": chainID,
		// For fee-market transactions go-ethereum's GasPrice is the fee
		// cap, which is what the service puts there (reference §9).
		"gas_price": tx.GasPrice(),
	}
	if tx.Type() >= types.DynamicFeeTxType {
		ints["max_fee_per_gas"], ints["max_priority_fee_per_gas"] = tx.GasFeeCap(), tx.GasTipCap()
	}
	if tx.Type() == types.BlobTxType {
		ints["max_fee_per_blob_gas"] = tx.BlobGasFeeCap()
	}
	for k, v := range ints {
		if fitsLanguageInt(v) {
			m[k] = new(big.Int).Set(v)
		}
	}
	return m
}

// Sign signs the transaction with a secp256k1 key's 32-byte secret and
// gives the signed transaction's binary encoding (RLP for legacy, the
// typed envelope otherwise).
func (t *EthTx) Sign(secret []byte) ([]byte, error) {
	key, err := crypto.ToECDSA(secret)
	if err != nil {
		return nil, err
	}
	// LatestSignerForChainID signs every type for the chain (EIP-155 for
	// legacy), and a legacy transaction without a chain id as Homestead.
	signed, err := types.SignTx(t.tx, types.LatestSignerForChainID(t.chainID), key)
	if err != nil {
		return nil, err
	}
	return signed.MarshalBinary()
}

// languageInt is the policy language's int (signed 128-bit, reference
// §7.1), as the catalogue types eth.tx.value. A value beyond it cannot be
// compared, so it is left out of a keyword, and a policy
// reading it gets an evaluation error.
var languageInt, _ = policylang.FieldType("EthereumTransaction", "value")

// fitsLanguageInt says whether v is an int the language can compare; the
// range is policylang's, not a copy of it.
func fitsLanguageInt(v *big.Int) bool {
	if v == nil || languageInt == nil {
		return false
	}
	_, err := policylang.Conform(languageInt, v)
	return err == nil
}
