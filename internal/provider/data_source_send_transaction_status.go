package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewSendTransactionStatusDataSource is the custody_send_transaction_status
// data source.
func NewSendTransactionStatusDataSource() datasource.DataSource {
	return newDataSource("send_transaction_status", sendTxStatusSchema(), readSendTxStatus)
}

type sendTxStatusDataSourceModel struct {
	SendTransactionStatusID types.String            `tfsdk:"send_transaction_status_id"`
	TxStatus                types.String            `tfsdk:"tx_status"`
	EthTxHash               types.String            `tfsdk:"eth_tx_hash"`
	SolanaSignature         types.String            `tfsdk:"solana_signature"`
	TxError                 types.String            `tfsdk:"tx_error"`
	Error                   *sendTxStatusErrorModel `tfsdk:"error"`
}

func sendTxStatusSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The status of a transaction the service sent: whether it is confirmed, its hash or " +
			"signature, and, when it failed, a structured explanation (EVM revert chain or Solana RPC details).",
		Attributes: map[string]schema.Attribute{
			"send_transaction_status_id": requiredArgument("The id of the send-transaction status to read.", notBlank()),
			"tx_status": computedString("The transaction's current status, " +
				"such as `CONFIRMED` or `FAILED`."),
			"eth_tx_hash": computedString("The transaction hash on an EVM " +
				"chain; null for other chains or before it is known."),
			"solana_signature": computedString("The transaction signature on " +
				"Solana; null for other chains or before it is known."),
			"tx_error": computedString("The error met while broadcasting or " +
				"confirming the transaction; null when there was none."),
			"error": sendTxStatusError(),
		},
	}
}

func readSendTxStatus(ctx context.Context, d *dataSourceBase, m *sendTxStatusDataSourceModel, diags *diag.Diagnostics) {
	id := m.SendTransactionStatusID.ValueString()
	out, err := d.pd.client.GetSendTransactionStatus(ctx, client.GetSendTransactionStatusRequest{SendTransactionStatusID: id})
	if err != nil {
		addAPIError(diags, "Error reading send-transaction status", client.QueryGetSendTransactionStatus,
			"send-transaction status "+id, err)
		return
	}
	m.TxStatus = types.StringValue(out.TxStatus)
	m.EthTxHash, m.SolanaSignature = types.StringNull(), types.StringNull()
	if out.Eth != nil {
		m.EthTxHash = optionalString(out.Eth.TxHash)
	}
	if out.Solana != nil {
		m.SolanaSignature = optionalString(out.Solana.Signature)
	}
	m.TxError = optionalString(out.TxError)
	m.Error = sendTxStatusErrorFlatten(out.Error)
}
