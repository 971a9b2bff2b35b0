variable "cluster_name" {
  description = "The EKS cluster (its control-plane log group is /aws/eks/<cluster_name>/cluster)."
  type        = string
  validation {
    condition     = can(regex("^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$", var.cluster_name))
    error_message = "cluster_name must be an EKS cluster name."
  }
}

variable "function_arn" {
  description = "onAuditEvent's ARN (the OnAuditEventArn output of the serverless stack)."
  type        = string
  validation {
    condition     = can(regex("^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\\d{12}:function:[A-Za-z0-9_-]+$", var.function_arn))
    error_message = "function_arn must be a Lambda function ARN."
  }
}

variable "filter_name" {
  description = "Name of the subscription filter."
  type        = string
  default     = "eks-auth-sentinel-aws-auth"
}
