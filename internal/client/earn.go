package client

// Earn providers.
const (
	EarnProviderProtocolA = "EARN_PROVIDER_PROTOCOL_A"
	EarnProviderProtocolB = "EARN_PROVIDER_PROTOCOL_B"
)

// EarnValueDisplay holds display-only amounts.
type EarnValueDisplay struct {
	USD    string `json:"usd,omitempty"`
	Crypto string `json:"crypto,omitempty"`
}

// EarnVaultRef names a vault and what wraps it: the fields an enabled
// vault and a position both start with.
type EarnVaultRef struct {
	VaultAddress     string `json:"vaultAddress,omitempty"`
	WrapperAddress   string `json:"wrapperAddress,omitempty"`
	Provider         string `json:"provider,omitempty"`
	Caip19           string `json:"caip19,omitempty"`
	DepositsDisabled *bool  `json:"depositsDisabled,omitempty"`
}

// EarnEnabledVault is one of the organization's deployed wrappers. Amounts
// are raw on-chain units, as strings. The claimable fee and fee wallet are
// returned to the parent organization only.
type EarnEnabledVault struct {
	EarnVaultRef
	ApyPct                    string            `json:"apyPct,omitempty"`
	TotalDeposited            string            `json:"totalDeposited,omitempty"`
	Display                   *EarnValueDisplay `json:"display,omitempty"`
	NetApyPct                 string            `json:"netApyPct,omitempty"`
	ClientFeeBps              string            `json:"clientFeeBps,omitempty"`
	Name                      string            `json:"name,omitempty"`
	Curator                   string            `json:"curator,omitempty"`
	ClaimableClientFee        string            `json:"claimableClientFee,omitempty"`
	ClaimableClientFeeDisplay *EarnValueDisplay `json:"claimableClientFeeDisplay,omitempty"`
	ClientFeeWallet           string            `json:"clientFeeWallet,omitempty"`
}

// ListEarnEnabledVaultsRequest is the body of list_earn_enabled_vaults.
type ListEarnEnabledVaultsRequest struct {
	OrganizationID string `json:"organizationId"`
	Provider       string `json:"provider,omitempty"`
	Caip19         string `json:"caip19,omitempty"`
}

// ListEarnEnabledVaultsResponse is the answer of list_earn_enabled_vaults.
type ListEarnEnabledVaultsResponse struct {
	EnabledVaults []EarnEnabledVault `json:"enabledVaults,omitempty"`
}

// EarnPositionDisplay holds display-only amounts of a position.
type EarnPositionDisplay struct {
	CurrentValueUSD      string `json:"currentValueUsd,omitempty"`
	TotalDepositedUSD    string `json:"totalDepositedUsd,omitempty"`
	TotalWithdrawnUSD    string `json:"totalWithdrawnUsd,omitempty"`
	CurrentValueCrypto   string `json:"currentValueCrypto,omitempty"`
	TotalDepositedCrypto string `json:"totalDepositedCrypto,omitempty"`
	TotalWithdrawnCrypto string `json:"totalWithdrawnCrypto,omitempty"`
}

// EarnPosition is an active position of a wallet.
type EarnPosition struct {
	EarnVaultRef
	CurrentValue   string               `json:"currentValue,omitempty"`
	TotalDeposited string               `json:"totalDeposited,omitempty"`
	TotalWithdrawn string               `json:"totalWithdrawn,omitempty"`
	Display        *EarnPositionDisplay `json:"display,omitempty"`
}

// ListEarnPositionsRequest is the body of list_earn_positions.
type ListEarnPositionsRequest struct {
	OrganizationID string `json:"organizationId"`
	WalletAddress  string `json:"walletAddress"`
}

// ListEarnPositionsResponse is the answer of list_earn_positions.
type ListEarnPositionsResponse struct {
	Positions []EarnPosition `json:"positions,omitempty"`
}
