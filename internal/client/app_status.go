package client

// DeploymentStatus is the state of one deployment of an app.
type DeploymentStatus struct {
	DeploymentID    string    `json:"deploymentId"`
	ReadyReplicas   int       `json:"readyReplicas"`
	DesiredReplicas int       `json:"desiredReplicas"`
	LastUpdatedTime Timestamp `json:"lastUpdatedTime"`
}

// AppStatus is the runtime status of a TVC app.
type AppStatus struct {
	AppID                string             `json:"appId"`
	Deployments          []DeploymentStatus `json:"deployments"`
	TargetedDeploymentID string             `json:"targetedDeploymentId"`
}

// GetAppStatusRequest is the body of get_app_status.
type GetAppStatusRequest struct {
	OrganizationID string `json:"organizationId"`
	AppID          string `json:"appId"`
}

// GetAppStatusResponse is the answer of get_app_status.
type GetAppStatusResponse struct {
	AppStatus AppStatus `json:"appStatus"`
}
