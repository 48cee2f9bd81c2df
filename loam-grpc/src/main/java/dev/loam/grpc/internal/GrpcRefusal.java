package dev.loam.grpc.internal;

import dev.loam.grpc.v1.ErrorReason;
import io.grpc.Status;

/** A refusal decided by the gRPC layer itself (authentication, roles, deadlines). */
final class GrpcRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final Status.Code code;
  final ErrorReason reason;

  GrpcRefusal(Status.Code code, ErrorReason reason, String message) {
    super(message, null, false, false);
    this.code = code;
    this.reason = reason;
  }

  static GrpcRefusal unauthenticated(String message) {
    return new GrpcRefusal(Status.Code.UNAUTHENTICATED, ErrorReason.UNAUTHENTICATED, message);
  }

  static GrpcRefusal forbidden(String message) {
    return new GrpcRefusal(Status.Code.PERMISSION_DENIED, ErrorReason.FORBIDDEN, message);
  }
}
