package payload

import (
	"encoding/hex"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// EncodeUnsignedEthTx is tx serialized as wallets send it to be signed,
// in hex with 0x: a typed transaction without its signature's three
// fields; a legacy one as rlp([nonce, gasPrice, gas, to, value, data]),
// with (chainID, 0, 0) when chainID is not nil (EIP-155). DecodeEthTx
// reads it back; the emulator's history and tests build activities with
// it.
func EncodeUnsignedEthTx(tx *types.Transaction, chainID *big.Int) (string, error) {
	if tx.Type() == types.LegacyTxType {
		f := legacyUnsigned{Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data()}
		if chainID != nil {
			f.V, f.R, f.S = chainID, new(big.Int), new(big.Int)
		}
		b, err := rlp.EncodeToBytes(&f)
		if err != nil {
			return "", err
		}
		return "0x" + hex.EncodeToString(b), nil
	}
	b, err := tx.MarshalBinary() // with a zero signature
	if err != nil {
		return "", err
	}
	var items []rlp.RawValue
	if err := rlp.DecodeBytes(b[1:], &items); err != nil {
		return "", err
	}
	body, err := rlp.EncodeToBytes(items[:len(items)-3])
	if err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(append([]byte{tx.Type()}, body...)), nil
}
