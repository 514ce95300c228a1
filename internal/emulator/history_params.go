package emulator

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
)

// A history plan's request: the operation and its parameters, built from
// what was drawn, as a wallet or a back office would send them.

// historyNonces count, in time order, each key's transactions and its
// Permit2 signatures.
type historyNonces struct{ tx, permit []uint64 }

// buildParams gives a plan its operation and parameters.
func buildParams(p *historyPlan, actors HistoryActors, nonces *historyNonces) {
	d := &p.draw
	keys := actors.PrivateKeys
	signWith := func(k int) string {
		if d.byID {
			return keys[k].PrivateKeyID
		}
		return keys[k].Address
	}
	switch p.kind {
	case kindPayout, kindSweep, kindTopUp, kindTransfer, kindRootTransfer:
		to := d.toAddr
		if d.to >= 0 {
			to = keys[d.to].Address
		}
		p.op = client.OpSignTransaction
		p.params = client.SignTransactionParams{SignWith: signWith(d.from), Type: payload.TxTypeEthereum,
			UnsignedTransaction: unsignedTransfer(d, to, nonces.tx[d.from])}
		nonces.tx[d.from]++
	case kindAttest:
		p.op = client.OpSignRawPayload
		p.params = client.SignRawPayloadParams{SignWith: signWith(d.from), Payload: hex.EncodeToString(d.message),
			Encoding: encodingHex, HashFunction: hashKeccak256}
	case kindDigest:
		p.op = client.OpSignRawPayload
		p.params = client.SignRawPayloadParams{SignWith: signWith(d.from), Payload: "0x" + hex.EncodeToString(d.message),
			Encoding: encodingHex, HashFunction: hashNoOp}
	case kindPermit:
		p.op = client.OpSignRawPayload
		p.params = client.SignRawPayloadParams{SignWith: signWith(d.from), Payload: permitPayload(d, p.at, nonces.permit[d.from]),
			Encoding: encodingEIP712, HashFunction: hashNotApplicable}
		nonces.permit[d.from]++
	case kindNewKey:
		tags := []string{}
		if d.tagged {
			tags = append(tags, actors.PrivateKeyTags["hot"])
		}
		p.op = client.OpCreatePrivateKeys
		p.params = client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{{PrivateKeyName: d.name, Curve: curveSecp256k1,
			PrivateKeyTags: tags, AddressFormats: []string{addressEthereum}}}}
	}
}

// unsignedTransfer is an EIP-1559 transaction on chain 1 sending ether to
// to, or tokens by an ERC-20 transfer, unsigned and in hex.
func unsignedTransfer(d *historyDraw, to string, nonce uint64) string {
	gwei := big.NewInt(1e9)
	tip := new(big.Int).Div(new(big.Int).Mul(big.NewInt(d.tipGwei), gwei), big.NewInt(10))
	feeCap := new(big.Int).Add(new(big.Int).Mul(big.NewInt(2*d.baseGwei), gwei), tip)
	tx := &types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, Value: d.amount}
	recipient := common.HexToAddress(to)
	tx.To = &recipient
	if d.token != nil {
		contract := common.HexToAddress(d.token.address)
		tx.To, tx.Value, tx.Gas = &contract, new(big.Int), 65_000
		tx.Data = append(slices.Clone(historyERC20Transfer), common.LeftPadBytes(recipient.Bytes(), 32)...)
		tx.Data = append(tx.Data, common.LeftPadBytes(d.amount.Bytes(), 32)...)
	}
	out, err := payload.EncodeUnsignedEthTx(types.NewTx(tx), nil)
	if err != nil { // a DynamicFeeTx of plain values always encodes
		panic(fmt.Sprintf("emulator: history: encoding a transaction: %v", err))
	}
	return out
}

// permitPayload is Permit2's PermitSingle typed data (as
// eth_signTypedData_v4 takes it), valid for 30 days, to be signed within
// 30 minutes.
func permitPayload(d *historyDraw, at time.Time, nonce uint64) string {
	type field struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	typed := map[string]any{
		"types": map[string][]field{
			"EIP712Domain":  {{"name", "string"}, {"chainId", "uint256"}, {"verifyingContract", "address"}},
			"PermitSingle":  {{"details", "PermitDetails"}, {"spender", "address"}, {"sigDeadline", "uint256"}},
			"PermitDetails": {{"token", "address"}, {"amount", "uint160"}, {"expiration", "uint48"}, {"nonce", "uint48"}},
		},
		"primaryType": "PermitSingle",
		"domain":      map[string]any{"name": "Permit2", "chainId": 1, "verifyingContract": historyPermit2},
		"message": map[string]any{
			"details": map[string]any{"token": d.token.address, "amount": d.amount.String(),
				"expiration": at.Add(30 * 24 * time.Hour).Unix(), "nonce": nonce},
			"spender":     d.spender,
			"sigDeadline": fmt.Sprint(at.Add(30 * time.Minute).Unix()),
		},
	}
	b, err := json.Marshal(typed)
	if err != nil { // plain maps of strings and numbers always encode
		panic(fmt.Sprintf("emulator: history: encoding typed data: %v", err))
	}
	return string(b)
}
