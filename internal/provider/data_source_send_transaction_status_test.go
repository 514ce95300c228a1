package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

// Send-transaction statuses of examples/emulator/fixtures.json.
const (
	sendTxStatusTestAddr      = "data.custody_send_transaction_status.test"
	sendTxStatusTestConfirmed = "092942a9-2b26-4584-9466-cc73379dbd9e" // eth, confirmed
	sendTxStatusTestEthFailed = "4b2b0a65-2daf-45b7-88ca-0d5a74a26400" // eth, reverted
	sendTxStatusTestSolFailed = "dc877f04-6303-4afe-af07-658cd7e36c35" // solana, preflight failure
)

func sendTxStatusTestConfig(e *accEmulator, id string) string {
	return e.dataBlock("custody_send_transaction_status", "send_transaction_status_id", id)
}

// sendTxStatusTestRevertChain is the fixture's chain, outermost first: a
// custom error, an Error(string) and an undecoded revert, so that each
// errorType fills its own object and leaves the other two null.
func sendTxStatusTestRevertChain() knownvalue.Check {
	return knownvalue.ListExact([]knownvalue.Check{
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"address":         knownvalue.StringExact("0xdf6206ee928190eadd669a3d9b1066b563ca27a8"),
			"error_type":      knownvalue.StringExact("custom"),
			"display_message": knownvalue.StringExact("InsufficientOutputAmount(amountOut: 995000, amountOutMin: 1000000)"),
			"unknown":         knownvalue.Null(),
			"native":          knownvalue.Null(),
			"custom": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"error_name":  knownvalue.StringExact("InsufficientOutputAmount"),
				"params_json": knownvalue.StringExact(`{"amountOut":"995000","amountOutMin":"1000000"}`),
			}),
		}),
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"address":         knownvalue.StringExact("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
			"error_type":      knownvalue.StringExact("native"),
			"display_message": knownvalue.StringExact("ERC20: transfer amount exceeds balance"),
			"unknown":         knownvalue.Null(),
			"native": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"native_type": knownvalue.StringExact("error_string"),
				"message":     knownvalue.StringExact("ERC20: transfer amount exceeds balance"),
				"panic_code":  knownvalue.Null(), // only for Panic(uint256)
			}),
			"custom": knownvalue.Null(),
		}),
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"address":         knownvalue.StringExact("0x2989ac2ec668fc31f251de4c19bf23656f32c4b1"),
			"error_type":      knownvalue.StringExact("unknown"),
			"display_message": knownvalue.StringExact("unknown error with selector 0x7939f424"),
			"unknown": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"selector": knownvalue.StringExact("0x7939f424"),
				"data":     knownvalue.StringExact("0x7939f424"),
			}),
			"native": knownvalue.Null(),
			"custom": knownvalue.Null(),
		}),
	})
}

// sendTxStatusTestReads reads the example fixtures' status id and checks
// it and each top-level field.
func sendTxStatusTestReads(t *testing.T, id string, fields map[string]knownvalue.Check) {
	t.Helper()
	e := newAccEmulator(t, withExampleFixtures(t))
	fields["send_transaction_status_id"] = knownvalue.StringExact(id)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:            sendTxStatusTestConfig(e, id),
			ConfigStateChecks: attrsAre(sendTxStatusTestAddr, fields),
		}},
	})
}

func TestAccSendTransactionStatusDataSource_confirmedEth(t *testing.T) {
	sendTxStatusTestReads(t, sendTxStatusTestConfirmed, map[string]knownvalue.Check{
		"tx_status":        knownvalue.StringExact("CONFIRMED"),
		"eth_tx_hash":      knownvalue.StringExact("0xbd5f80ccb10eca14c3208d1328f6472b5dec65ceed872731b0f2bc56c1298436"),
		"solana_signature": knownvalue.Null(),
		"tx_error":         knownvalue.Null(),
		"error":            knownvalue.Null(),
	})
}

func TestAccSendTransactionStatusDataSource_failedEth(t *testing.T) {
	sendTxStatusTestReads(t, sendTxStatusTestEthFailed, map[string]knownvalue.Check{
		"tx_status":        knownvalue.StringExact("FAILED"),
		"eth_tx_hash":      knownvalue.StringExact("0x75a64ea61a65fbacebfe98ec0c6e89b3b2f285de88e2494ebde1963d5df70ae5"),
		"solana_signature": knownvalue.Null(),
		"tx_error":         knownvalue.StringExact("execution reverted"),
		"error": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"message":      knownvalue.StringExact("execution reverted: InsufficientOutputAmount(995000, 1000000)"),
			"revert_chain": sendTxStatusTestRevertChain(),
			"solana":       knownvalue.Null(),
			"eth":          knownvalue.ObjectExact(map[string]knownvalue.Check{"revert_chain": sendTxStatusTestRevertChain()}),
		}),
	})
}

func TestAccSendTransactionStatusDataSource_failedSolana(t *testing.T) {
	const msg = "Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1"
	const token = "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA "
	const budget = "Program ComputeBudget111111111111111111111111111111 "
	sendTxStatusTestReads(t, sendTxStatusTestSolFailed, map[string]knownvalue.Check{
		"tx_status": knownvalue.StringExact("FAILED"),
		// Failed in preflight: never broadcast, so no signature.
		"eth_tx_hash":      knownvalue.Null(),
		"solana_signature": knownvalue.Null(),
		"tx_error":         knownvalue.StringExact(msg),
		"error": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"message":      knownvalue.StringExact(msg),
			"revert_chain": knownvalue.Null(),
			"eth":          knownvalue.Null(),
			"solana": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"source":                 knownvalue.StringExact("preflight"),
				"rpc_code":               knownvalue.Int64Exact(-32002),
				"rpc_message":            knownvalue.StringExact(msg),
				"transaction_error_json": knownvalue.StringExact(`{"InstructionError":[2,{"Custom":1}]}`),
				"logs": knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact(budget + "invoke [1]"),
					knownvalue.StringExact(budget + "success"),
					knownvalue.StringExact(budget + "invoke [1]"),
					knownvalue.StringExact(budget + "success"),
					knownvalue.StringExact(token + "invoke [1]"),
					knownvalue.StringExact("Program log: Instruction: TransferChecked"),
					knownvalue.StringExact("Program log: Error: insufficient funds"),
					knownvalue.StringExact(token + "consumed 4407 of 199700 compute units"),
					knownvalue.StringExact(token + "failed: custom program error: 0x1"),
				}),
				"units_consumed":          knownvalue.StringExact("4707"),
				"inner_instructions_json": knownvalue.StringExact("[]"),
			}),
		}),
	})
}

func TestAccSendTransactionStatusDataSource_errors(t *testing.T) {
	accReadErrors(t, sendTxStatusTestConfig, "send_transaction_status_id", "", "00000000-0000-4000-8000-0000000000dd",
		"Error reading send-transaction status", "send-transaction status 00000000-0000-4000-8000-0000000000dd", "HTTP 404")
}
