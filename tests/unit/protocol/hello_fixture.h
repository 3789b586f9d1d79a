// A small message for the tests of protocol/: frame_codec_test.cc and session_crypto_test.cc.
#pragma once

#include <cstdint>

#include "protocol/ktune.pb.h"

namespace ktune::fixture {

// A Hello of protocol version `version` from client "test".
inline wire::Envelope Hello(uint32_t version) {
  wire::Envelope env;
  env.mutable_hello()->set_protocol_version(version);
  env.mutable_hello()->set_client_version("test");
  return env;
}

}  // namespace ktune::fixture
