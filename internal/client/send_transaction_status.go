package client

// GetSendTransactionStatusRequest is the body of get_send_transaction_status.
type GetSendTransactionStatusRequest struct {
	OrganizationID          string `json:"organizationId"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// GetSendTransactionStatusResponse is the status of a sent transaction.
type GetSendTransactionStatusResponse struct {
	TxStatus string                       `json:"txStatus"`
	Eth      *EthSendTransactionStatus    `json:"eth,omitempty"`
	Solana   *SolanaSendTransactionStatus `json:"solana,omitempty"`
	TxError  string                       `json:"txError,omitempty"`
	Error    *TxError                     `json:"error,omitempty"`
}

// EthSendTransactionStatus holds the Ethereum transaction hash.
type EthSendTransactionStatus struct {
	TxHash string `json:"txHash,omitempty"`
}

// SolanaSendTransactionStatus holds the Solana signature.
type SolanaSendTransactionStatus struct {
	Signature string `json:"signature,omitempty"`
}

// TxError is the structured error of a transaction.
type TxError struct {
	Message     string                `json:"message,omitempty"`
	RevertChain []RevertChainEntry    `json:"revertChain,omitempty"`
	Solana      *SolanaFailureDetails `json:"solana,omitempty"`
	Eth         *EthFailureDetails    `json:"eth,omitempty"`
}

// RevertChainEntry is one revert, outermost first.
type RevertChainEntry struct {
	Address        string              `json:"address,omitempty"`
	ErrorType      string              `json:"errorType,omitempty"` // unknown, native or custom
	DisplayMessage string              `json:"displayMessage,omitempty"`
	Unknown        *UnknownRevertError `json:"unknown,omitempty"`
	Native         *NativeRevertError  `json:"native,omitempty"`
	Custom         *CustomRevertError  `json:"custom,omitempty"`
}

// UnknownRevertError is a revert that could not be decoded.
type UnknownRevertError struct {
	Selector string `json:"selector,omitempty"`
	Data     string `json:"data,omitempty"`
}

// NativeRevertError is Error(string), Panic(uint256) or a bare revert.
type NativeRevertError struct {
	NativeType string `json:"nativeType,omitempty"`
	Message    string `json:"message,omitempty"`
	PanicCode  string `json:"panicCode,omitempty"`
}

// CustomRevertError is a decoded custom error.
type CustomRevertError struct {
	ErrorName  string `json:"errorName,omitempty"`
	ParamsJSON string `json:"paramsJson,omitempty"`
}

// SolanaFailureDetails explains a Solana failure.
type SolanaFailureDetails struct {
	Source                string   `json:"source,omitempty"`
	RPCCode               *int     `json:"rpcCode,omitempty"`
	RPCMessage            string   `json:"rpcMessage,omitempty"`
	TransactionErrorJSON  string   `json:"transactionErrorJson,omitempty"`
	Logs                  []string `json:"logs,omitempty"`
	UnitsConsumed         string   `json:"unitsConsumed,omitempty"`
	InnerInstructionsJSON string   `json:"innerInstructionsJson,omitempty"`
}

// EthFailureDetails explains an Ethereum failure.
type EthFailureDetails struct {
	RevertChain []RevertChainEntry `json:"revertChain,omitempty"`
}
