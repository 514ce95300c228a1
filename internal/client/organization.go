package client

// UpdateOrganizationNameParams are the parameters of update_organization_name.
type UpdateOrganizationNameParams struct {
	OrganizationName string `json:"organizationName"`
}

// UpdateOrganizationNameResult is the result of update_organization_name.
type UpdateOrganizationNameResult struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
}

// WhoamiRequest is the body of whoami.
type WhoamiRequest = OrganizationRequest

// GetOrganizationConfigsRequest is the body of get_organization_configs.
type GetOrganizationConfigsRequest = OrganizationRequest

// GetOrganizationConfigsResponse holds the organization's configuration.
type GetOrganizationConfigsResponse struct {
	Configs OrganizationConfigs `json:"configs"`
}

// OrganizationConfigs are the organization's root quorum and features.
type OrganizationConfigs struct {
	Features []Feature `json:"features"`
	Quorum   *Quorum   `json:"quorum,omitempty"`
}

// Feature is an organization feature and its value.
type Feature struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// Quorum is the root quorum: its users, and how many of them must approve.
type Quorum struct {
	Threshold int      `json:"threshold"`
	UserIDs   []string `json:"userIds"`
}

// WhoamiResponse says which organization and user the key belongs to.
type WhoamiResponse struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
}
