package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The structured error of custody_send_transaction_status (spec 4.2.7).
// Every field is optional in the service's answer, so each omitted one,
// object or list included, is null.

type sendTxStatusErrorModel struct {
	Message     types.String `tfsdk:"message"`
	RevertChain types.List   `tfsdk:"revert_chain"`
	Solana      types.Object `tfsdk:"solana"`
	Eth         types.Object `tfsdk:"eth"`
}

type sendTxStatusRevertModel struct {
	Address        types.String `tfsdk:"address"`
	ErrorType      types.String `tfsdk:"error_type"`
	DisplayMessage types.String `tfsdk:"display_message"`
	Unknown        types.Object `tfsdk:"unknown"`
	Native         types.Object `tfsdk:"native"`
	Custom         types.Object `tfsdk:"custom"`
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
	Logs                  types.List   `tfsdk:"logs"`
	UnitsConsumed         types.String `tfsdk:"units_consumed"`
	InnerInstructionsJSON types.String `tfsdk:"inner_instructions_json"`
}

type sendTxStatusEthModel struct {
	RevertChain types.List `tfsdk:"revert_chain"`
}

func sendTxStatusUnknownAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"selector": computedOmittable("The 4-byte error selector, hex."),
		"data":     computedOmittable("The raw revert data, hex."),
	}
}

func sendTxStatusNativeAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"native_type": computedOmittable("`error_string` (`Error(string)`), `panic` (`Panic(uint256)`) or `execution_reverted` (a bare revert)."),
		"message":     computedOmittable("The message of an `Error(string)`."),
		"panic_code":  computedOmittable("The code of a `Panic(uint256)`, as the service writes it."),
	}
}

func sendTxStatusCustomAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"error_name":  computedOmittable("The custom error's name."),
		"params_json": computedOmittable("The decoded parameters, as JSON object text."),
	}
}

// sendTxStatusRevertAttributes is one revert of a chain; both revert chains
// (error.revert_chain and error.eth.revert_chain) use it.
func sendTxStatusRevertAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"address":         computedOmittable("The contract where the revert happened."),
		"error_type":      computedOmittable("`unknown`, `native` or `custom`: which of the objects below describes it."),
		"display_message": computedOmittable("A human-readable explanation."),
		"unknown": schema.SingleNestedAttribute{Computed: true, Attributes: sendTxStatusUnknownAttributes(),
			MarkdownDescription: "A revert that could not be decoded; null unless `error_type` is `unknown`."},
		"native": schema.SingleNestedAttribute{Computed: true, Attributes: sendTxStatusNativeAttributes(),
			MarkdownDescription: "A Solidity built-in error; null unless `error_type` is `native`."},
		"custom": schema.SingleNestedAttribute{Computed: true, Attributes: sendTxStatusCustomAttributes(),
			MarkdownDescription: "A decoded custom error; null unless `error_type` is `custom`."},
	}
}

func sendTxStatusRevertChain() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true,
		NestedObject:        schema.NestedAttributeObject{Attributes: sendTxStatusRevertAttributes()},
		MarkdownDescription: "The reverts, outermost call first, innermost last; null when the service leaves it out."}
}

func sendTxStatusSolanaAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"source":                 computedOmittable("Where the failure happened, such as `simulation` or `preflight`."),
		"rpc_code":               computedInt64("The RPC error code." + omittedNull),
		"rpc_message":            computedOmittable("The RPC error message."),
		"transaction_error_json": computedOmittable("The raw transaction error, as JSON text."),
		"logs": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The program logs, in order. Null when the service leaves them out."},
		"units_consumed":          computedOmittable("The compute units consumed, a decimal number as a string."),
		"inner_instructions_json": computedOmittable("The inner instructions, as JSON text."),
	}
}

func sendTxStatusEthAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{"revert_chain": sendTxStatusRevertChain()}
}

func sendTxStatusErrorAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"message":      computedOmittable("The error message."),
		"revert_chain": sendTxStatusRevertChain(),
		"solana": schema.SingleNestedAttribute{Computed: true, Attributes: sendTxStatusSolanaAttributes(),
			MarkdownDescription: "Details of a Solana failure; null for other chains."},
		"eth": schema.SingleNestedAttribute{Computed: true, Attributes: sendTxStatusEthAttributes(),
			MarkdownDescription: "Details of an EVM failure; null for other chains."},
	}
}

// sendTxStatusAttrTypes derives the object type from the schema, so the
// values built here always match what the schema declares.
func sendTxStatusAttrTypes(attrs map[string]schema.Attribute) map[string]attr.Type {
	out := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		out[name] = a.GetType()
	}
	return out
}

// sendTxStatusObject is m as an object of attrs, or null when m is nil.
func sendTxStatusObject[M any](ctx context.Context, attrs map[string]schema.Attribute, m *M, diags *diag.Diagnostics) types.Object {
	t := sendTxStatusAttrTypes(attrs)
	if m == nil {
		return types.ObjectNull(t)
	}
	o, d := types.ObjectValueFrom(ctx, t, m)
	diags.Append(d...)
	return o
}

func sendTxStatusErrorFlatten(ctx context.Context, e *client.TxError, diags *diag.Diagnostics) types.Object {
	var m *sendTxStatusErrorModel
	if e != nil {
		m = &sendTxStatusErrorModel{
			Message:     optionalString(e.Message),
			RevertChain: sendTxStatusRevertChainFlatten(ctx, e.RevertChain, diags),
			Solana:      sendTxStatusObject(ctx, sendTxStatusSolanaAttributes(), sendTxStatusSolanaFlatten(ctx, e.Solana, diags), diags),
		}
		var eth *sendTxStatusEthModel
		if e.Eth != nil {
			eth = &sendTxStatusEthModel{RevertChain: sendTxStatusRevertChainFlatten(ctx, e.Eth.RevertChain, diags)}
		}
		m.Eth = sendTxStatusObject(ctx, sendTxStatusEthAttributes(), eth, diags)
	}
	return sendTxStatusObject(ctx, sendTxStatusErrorAttributes(), m, diags)
}

func sendTxStatusRevertChainFlatten(ctx context.Context, chain []client.RevertChainEntry, diags *diag.Diagnostics) types.List {
	elem := types.ObjectType{AttrTypes: sendTxStatusAttrTypes(sendTxStatusRevertAttributes())}
	if chain == nil {
		return types.ListNull(elem)
	}
	items := make([]sendTxStatusRevertModel, 0, len(chain))
	for _, r := range chain {
		item := sendTxStatusRevertModel{
			Address:        optionalString(r.Address),
			ErrorType:      optionalString(r.ErrorType),
			DisplayMessage: optionalString(r.DisplayMessage),
		}
		var unknown *sendTxStatusUnknownModel
		if r.Unknown != nil {
			unknown = &sendTxStatusUnknownModel{Selector: optionalString(r.Unknown.Selector), Data: optionalString(r.Unknown.Data)}
		}
		var native *sendTxStatusNativeModel
		if r.Native != nil {
			native = &sendTxStatusNativeModel{NativeType: optionalString(r.Native.NativeType),
				Message: optionalString(r.Native.Message), PanicCode: optionalString(r.Native.PanicCode)}
		}
		var custom *sendTxStatusCustomModel
		if r.Custom != nil {
			custom = &sendTxStatusCustomModel{ErrorName: optionalString(r.Custom.ErrorName), ParamsJSON: optionalString(r.Custom.ParamsJSON)}
		}
		item.Unknown = sendTxStatusObject(ctx, sendTxStatusUnknownAttributes(), unknown, diags)
		item.Native = sendTxStatusObject(ctx, sendTxStatusNativeAttributes(), native, diags)
		item.Custom = sendTxStatusObject(ctx, sendTxStatusCustomAttributes(), custom, diags)
		items = append(items, item)
	}
	l, d := types.ListValueFrom(ctx, elem, items)
	diags.Append(d...)
	return l
}

func sendTxStatusSolanaFlatten(ctx context.Context, s *client.SolanaFailureDetails, diags *diag.Diagnostics) *sendTxStatusSolanaModel {
	if s == nil {
		return nil
	}
	logs := types.ListNull(types.StringType)
	if s.Logs != nil {
		var d diag.Diagnostics
		logs, d = types.ListValueFrom(ctx, types.StringType, s.Logs)
		diags.Append(d...)
	}
	return &sendTxStatusSolanaModel{
		Source:                optionalString(s.Source),
		RPCCode:               optionalInt(s.RPCCode),
		RPCMessage:            optionalString(s.RPCMessage),
		TransactionErrorJSON:  optionalString(s.TransactionErrorJSON),
		Logs:                  logs,
		UnitsConsumed:         optionalString(s.UnitsConsumed),
		InnerInstructionsJSON: optionalString(s.InnerInstructionsJSON),
	}
}
