variable "home_region" {
  description = "The Region where eks-auth-sentinel is deployed (its default event bus receives the events)."
  type        = string
  validation {
    condition     = can(regex("^[a-z]{2,4}(-[a-z]+)+-\\d+$", var.home_region))
    error_message = "home_region must be an AWS Region, e.g. eu-west-1."
  }
}

variable "name_prefix" {
  description = "Prefix of the rule, role and queue names."
  type        = string
  default     = "eks-auth-sentinel"
}

variable "tags" {
  description = "Tags for every resource."
  type        = map(string)
  default     = {}
}
