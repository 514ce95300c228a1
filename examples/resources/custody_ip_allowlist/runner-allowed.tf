variable "terraform_runner_cidrs" {
  description = "CIDR blocks Terraform runs from (e.g. the CI runners' egress addresses). Always allowed."
  type        = list(string)
  default     = ["198.51.100.10/32"]

  validation {
    condition     = length(var.terraform_runner_cidrs) > 0
    error_message = "List at least one address Terraform runs from, or the allowlist would lock Terraform out."
  }
}

variable "office_cidrs" {
  description = "Other CIDR blocks API requests may come from."
  type        = list(string)
  default     = ["203.0.113.0/24"]
}

variable "allowlist_enabled" {
  description = "Apply once with false to prepare the allowlist, then switch it on."
  type        = bool
  default     = false
}

resource "custody_ip_allowlist" "organization_safe" {
  enabled = var.allowlist_enabled

  rules = concat(
    [for cidr in var.terraform_runner_cidrs : { cidr = cidr, label = "terraform runner" }],
    [for cidr in var.office_cidrs : { cidr = cidr, label = "office" }],
  )
}
