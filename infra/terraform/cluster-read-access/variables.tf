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
  description = "The monitor's function roles, without an IAM path: split(\",\", <serverless output MonitorRoleArns>) — worker, event, report."
  type        = list(string)
  validation {
    condition     = length(var.monitor_role_arns) > 0 && alltrue([for arn in var.monitor_role_arns : can(regex("^arn:aws[a-z-]*:iam::\\d{12}:role/[\\w+=,.@-]+$", arn))])
    error_message = "monitor_role_arns must be IAM role ARNs without a path (aws-auth never matches a path)."
  }
}

variable "tags" {
  description = "Tags for the access entries."
  type        = map(string)
  default     = {}
}
