package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The structured error of custody_send_transaction_status (spec 4.2.7).
// Every field is optional in the service's answer, so each omitted one,
// object or list included, is null.

type sendTxStatusErrorModel struct {
	Message     types.String              `tfsdk:"message"`
	RevertChain []sendTxStatusRevertModel `tfsdk:"revert_chain"`
	Solana      *sendTxStatusSolanaModel  `tfsdk:"solana"`
	Eth         *sendTxStatusEthModel     `tfsdk:"eth"`
}

type sendTxStatusRevertModel struct {
	Address        types.String              `tfsdk:"address"`
	ErrorType      types.String              `tfsdk:"error_type"`
	DisplayMessage types.String              `tfsdk:"display_message"`
	Unknown        *sendTxStatusUnknownModel `tfsdk:"unknown"`
	Native         *sendTxStatusNativeModel  `tfsdk:"native"`
	Custom         *sendTxStatusCustomModel  `tfsdk:"custom"`
}

type sendTxStatusUnknownModel struct {
	Selector types.String `tfsdk:"selector"`
	Data     types.String `tfsdk:"data"`
}

type sendTxStatusNativeModel struct {
	NativeType types.String `tfsdk:"native_type"`
	Message    types.String `tfsdk:"message"`
	PanicCode  types.String `tfsdk:"panic_code"`
}

type sendTxStatusCustomModel struct {
	ErrorName  types.String `tfsdk:"error_name"`
	ParamsJSON types.String `tfsdk:"params_json"`
}

type sendTxStatusSolanaModel struct {
	Source                types.String `tfsdk:"source"`
	RPCCode               types.Int64  `tfsdk:"rpc_code"`
	RPCMessage            types.String `tfsdk:"rpc_message"`
	TransactionErrorJSON  types.String `tfsdk:"transaction_error_json"`
	Logs                  []string     `tfsdk:"logs"`
	UnitsConsumed         types.String `tfsdk:"units_consumed"`
	InnerInstructionsJSON types.String `tfsdk:"inner_instructions_json"`
}

type sendTxStatusEthModel struct {
	RevertChain []sendTxStatusRevertModel `tfsdk:"revert_chain"`
}

// sendTxStatusRevertAttributes is one revert of a chain; both revert chains
// (error.revert_chain and error.eth.revert_chain) use it.
func sendTxStatusRevertAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"address":         computedOmittable("The contract where the revert happened."),
		"error_type":      computedOmittable("`unknown`, `native` or `custom`: which of the objects below describes it."),
		"display_message": computedOmittable("A human-readable explanation."),
		"unknown": computedObject("A revert that could not be decoded; null unless `error_type` is `unknown`.", map[string]schema.Attribute{
			"selector": computedOmittable("The 4-byte error selector, hex."),
			"data":     computedOmittable("The raw revert data, hex."),
		}),
		"native": computedObject("A Solidity built-in error; null unless `error_type` is `native`.", map[string]schema.Attribute{
			"native_type": computedOmittable("`error_string` (`Error(string)`), `panic` (`Panic(uint256)`) or `execution_reverted` (a bare revert)."),
			"message":     computedOmittable("The message of an `Error(string)`."),
			"panic_code":  computedOmittable("The code of a `Panic(uint256)`, as the service writes it."),
		}),
		"custom": computedObject("A decoded custom error; null unless `error_type` is `custom`.", map[string]schema.Attribute{
			"error_name":  computedOmittable("The custom error's name."),
			"params_json": computedOmittable("The decoded parameters, as JSON object text."),
		}),
	}
}

func sendTxStatusRevertChain() schema.ListNestedAttribute {
	return computedList("The reverts, outermost call first, innermost last; null when the service leaves it out.",
		sendTxStatusRevertAttributes())
}

// sendTxStatusError is the schema of the structured error.
func sendTxStatusError() schema.SingleNestedAttribute {
	return computedObject("The structured error of a failed transaction; null when there is none.", map[string]schema.Attribute{
		"message":      computedOmittable("The error message."),
		"revert_chain": sendTxStatusRevertChain(),
		"solana": computedObject("Details of a Solana failure; null for other chains.", map[string]schema.Attribute{
			"source":                 computedOmittable("Where the failure happened, such as `simulation` or `preflight`."),
			"rpc_code":               computedInt64("The RPC error code." + omittedNull),
			"rpc_message":            computedOmittable("The RPC error message."),
			"transaction_error_json": computedOmittable("The raw transaction error, as JSON text."),
			"logs": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The program logs, in order. Null when the service leaves them out."},
			"units_consumed":          computedOmittable("The compute units consumed, a decimal number as a string."),
			"inner_instructions_json": computedOmittable("The inner instructions, as JSON text."),
		}),
		"eth": computedObject("Details of an EVM failure; null for other chains.",
			map[string]schema.Attribute{"revert_chain": sendTxStatusRevertChain()}),
	})
}

// sendTxStatusErrorFlatten converts the structured error; nil (null) when
// the service sends none.
func sendTxStatusErrorFlatten(e *client.TxError) *sendTxStatusErrorModel {
	if e == nil {
		return nil
	}
	m := &sendTxStatusErrorModel{
		Message:     optionalString(e.Message),
		RevertChain: sendTxStatusRevertChainFlatten(e.RevertChain),
		Solana:      sendTxStatusSolanaFlatten(e.Solana),
	}
	if e.Eth != nil {
		m.Eth = &sendTxStatusEthModel{RevertChain: sendTxStatusRevertChainFlatten(e.Eth.RevertChain)}
	}
	return m
}

// sendTxStatusRevertChainFlatten converts a revert chain: an omitted one is
// nil (null), an empty one stays an empty list.
func sendTxStatusRevertChainFlatten(chain []client.RevertChainEntry) []sendTxStatusRevertModel {
	if chain == nil {
		return nil
	}
	return listOf(chain, func(r client.RevertChainEntry) sendTxStatusRevertModel {
		item := sendTxStatusRevertModel{
			Address:        optionalString(r.Address),
			ErrorType:      optionalString(r.ErrorType),
			DisplayMessage: optionalString(r.DisplayMessage),
		}
		if r.Unknown != nil {
			item.Unknown = &sendTxStatusUnknownModel{Selector: optionalString(r.Unknown.Selector), Data: optionalString(r.Unknown.Data)}
		}
		if r.Native != nil {
			item.Native = &sendTxStatusNativeModel{NativeType: optionalString(r.Native.NativeType),
				Message: optionalString(r.Native.Message), PanicCode: optionalString(r.Native.PanicCode)}
		}
		if r.Custom != nil {
			item.Custom = &sendTxStatusCustomModel{ErrorName: optionalString(r.Custom.ErrorName), ParamsJSON: optionalString(r.Custom.ParamsJSON)}
		}
		return item
	})
}

// sendTxStatusSolanaFlatten converts the Solana details; omitted logs stay
// nil (null), empty ones an empty list.
func sendTxStatusSolanaFlatten(s *client.SolanaFailureDetails) *sendTxStatusSolanaModel {
	if s == nil {
		return nil
	}
	return &sendTxStatusSolanaModel{
		Source:                optionalString(s.Source),
		RPCCode:               optionalInt(s.RPCCode),
		RPCMessage:            optionalString(s.RPCMessage),
		TransactionErrorJSON:  optionalString(s.TransactionErrorJSON),
		Logs:                  s.Logs,
		UnitsConsumed:         optionalString(s.UnitsConsumed),
		InnerInstructionsJSON: optionalString(s.InnerInstructionsJSON),
	}
}
