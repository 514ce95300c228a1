package client

// AssetMetadata describes one asset of a chain. Every field is optional.
type AssetMetadata struct {
	Caip19   string `json:"caip19,omitempty"`
	Symbol   string `json:"symbol,omitempty"`
	Decimals *int   `json:"decimals,omitempty"`
	LogoURL  string `json:"logoUrl,omitempty"`
	Name     string `json:"name,omitempty"`
	Stable   *bool  `json:"stable,omitempty"`
}

// ListSupportedAssetsRequest is the body of list_supported_assets.
type ListSupportedAssetsRequest struct {
	OrganizationID string `json:"organizationId"`
	Caip2          string `json:"caip2"`
}

// ListSupportedAssetsResponse is the answer of list_supported_assets.
type ListSupportedAssetsResponse struct {
	Assets []AssetMetadata `json:"assets,omitempty"`
}
