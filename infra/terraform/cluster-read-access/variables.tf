variable "cluster_name" {
  description = "The EKS cluster."
  type        = string
}

variable "authentication_mode" {
  description = "The cluster's authentication mode: API, API_AND_CONFIG_MAP or CONFIG_MAP."
  type        = string
  validation {
    condition     = contains(["API", "API_AND_CONFIG_MAP", "CONFIG_MAP"], var.authentication_mode)
    error_message = "authentication_mode must be API, API_AND_CONFIG_MAP or CONFIG_MAP."
  }
}

variable "monitor_role_arns" {
  description = "The monitor's function roles (serverless output MonitorRoleArns: worker, event, report), without an IAM path."
  type        = list(string)
  validation {
    condition     = length(var.monitor_role_arns) > 0 && alltrue([for arn in var.monitor_role_arns : can(regex("^arn:aws[a-z-]*:iam::\\d{12}:role/[\\w+=,.@-]+$", arn))])
    error_message = "monitor_role_arns must be IAM role ARNs without a path (aws-auth never matches a path)."
  }
}

variable "manage_aws_auth" {
  description = "CONFIG_MAP only: write aws-auth mapRoles (the whole key: existing_map_roles + the monitor)."
  type        = bool
  default     = false
}

variable "existing_map_roles" {
  description = "CONFIG_MAP with manage_aws_auth: every other mapRoles entry ({rolearn, username, groups})."
  type = list(object({
    rolearn  = string
    username = string
    groups   = list(string)
  }))
  default = []
}

variable "tags" {
  description = "Tags for the access entries."
  type        = map(string)
  default     = {}
}
