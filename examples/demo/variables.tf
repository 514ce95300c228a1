variable "organization_name" {
  description = "The organization's display name."
  type        = string
  default     = "Acme Treasury (demo)"
}

variable "office_networks" {
  description = "Extra CIDR blocks allowed to call the service, with a label for each."
  type        = map(string)
  default = {
    "10.20.0.0/16"   = "office VPN"
    "203.0.113.0/24" = "CI runners"
  }
}
