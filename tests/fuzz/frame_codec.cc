// Fuzzes the wire's framing: FrameCodec::Feed/Next on a plain stream, as agentd and khost read a
// peer's bytes (and the agent its profiles.frames), and WholeFramesBytes; and sealed sessions:
// Next on garbage a peer sends after StartSealing, and the seal/open round trip.
//
// Input: one options byte (bit 0: a 256-byte frame maximum instead of kMaxFrameBytes; bits 1-7:
// the size of the pieces the stream is fed in, 1-128), two bytes giving which bit of the sealed
// stream to flip, then the byte stream.
//
// Asserts, beyond no crash and no sanitizer report:
// - the messages decoded are the same whether the stream arrives whole or in pieces;
// - when no frame failed, the bytes consumed are exactly WholeFramesBytes of the stream;
// - every message decoded re-encodes to a frame that decodes to the same message;
// - those messages, sealed by one side, open on the other unchanged and in order, and with any
//   one bit of the sealed stream flipped the receiver yields only the frames before that bit:
//   never an altered message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/frame_codec.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

constexpr size_t kSmallMaxFrameBytes = 256;

struct Decoded {
  std::vector<std::string> messages;  // each decoded message, serialized
  bool failed = false;                // Next() returned an error
  size_t consumed_bytes = 0;
};

// Feeds `stream` to `codec` in pieces of `piece_bytes` (everything at once when 0), taking every
// message out as soon as it is complete, until an error.
Decoded Decode(FrameCodec& codec, std::string_view stream, size_t piece_bytes) {
  Decoded out;
  size_t fed = 0;
  while (!out.failed) {
    const size_t n =
        piece_bytes == 0 ? stream.size() - fed : std::min(piece_bytes, stream.size() - fed);
    codec.Feed(stream.substr(fed, n));
    fed += n;
    for (;;) {
      auto next = codec.Next();
      if (!next.ok()) {
        out.failed = true;
        break;
      }
      if (!next->has_value()) break;
      out.messages.push_back((*next)->SerializeAsString());
    }
    if (fed == stream.size()) break;
  }
  out.consumed_bytes = fed - codec.buffered_bytes();
  return out;
}

wire::Envelope Parsed(const std::string& serialized) {
  wire::Envelope msg;
  FUZZ_CHECK(msg.ParseFromString(serialized));
  return msg;
}

FrameSealer::Key KeyOf(char fill) {
  FrameSealer::Key key;
  key.fill(static_cast<unsigned char>(fill));
  return key;
}

}  // namespace
}  // namespace ktune

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  if (size < 3) return 0;
  const uint8_t options = data[0];
  const size_t flip_bit_index = (size_t{data[1]} << 8) | data[2];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 3, size - 3);
  const size_t max_bytes = (options & 1) ? kSmallMaxFrameBytes : kMaxFrameBytes;
  const size_t piece_bytes = (options >> 1) + 1;

  FrameCodec whole_codec(max_bytes);
  const Decoded whole = Decode(whole_codec, stream, 0);
  FrameCodec pieces_codec(max_bytes);
  const Decoded pieces = Decode(pieces_codec, stream, piece_bytes);
  FUZZ_CHECK(whole.messages == pieces.messages);
  FUZZ_CHECK(whole.failed == pieces.failed);
  if (!whole.failed) {
    FUZZ_CHECK(whole.consumed_bytes == WholeFramesBytes(stream));
    FUZZ_CHECK(pieces.consumed_bytes == whole.consumed_bytes);
  }

  // Plain re-encoding: the same message back. (Under the default maximum: a message may
  // re-serialize longer than it came, e.g. an int32 sent as a 5-byte varint goes out as 10.)
  for (const std::string& m : whole.messages) {
    FrameCodec encoder;
    auto frame = encoder.Encode(Parsed(m));
    FUZZ_CHECK(frame.ok());
    FrameCodec decoder;
    const Decoded again = Decode(decoder, *frame, 0);
    FUZZ_CHECK(!again.failed && again.messages.size() == 1 && again.messages[0] == m);
  }

  // Garbage where a sealed frame is due: refused or waited for, never a crash.
  FrameCodec sealed_receiver;
  sealed_receiver.StartSealing(KeyOf('a'), KeyOf('b'));
  Decode(sealed_receiver, stream, piece_bytes);

  // Sealing round trip, then one bit flipped.
  if (whole.messages.empty()) return 0;
  FrameCodec host, agent;
  host.StartSealing(KeyOf('h'), KeyOf('g'));
  agent.StartSealing(KeyOf('g'), KeyOf('h'));
  std::string sealed;
  for (const std::string& m : whole.messages) {
    auto frame = host.Encode(Parsed(m));
    FUZZ_CHECK(frame.ok());  // the stream's frames fit kMaxFrameBytes with the tag
    sealed += *frame;
  }
  const Decoded opened = Decode(agent, sealed, piece_bytes);
  FUZZ_CHECK(!opened.failed && opened.messages == whole.messages);
  FUZZ_CHECK(opened.consumed_bytes == sealed.size());

  std::string tampered = sealed;
  const size_t bit = flip_bit_index % (tampered.size() * 8);
  tampered[bit / 8] = static_cast<char>(tampered[bit / 8] ^ (1 << (bit % 8)));
  FrameCodec victim;
  victim.StartSealing(KeyOf('g'), KeyOf('h'));
  const Decoded attacked = Decode(victim, tampered, piece_bytes);
  FUZZ_CHECK(attacked.messages.size() < whole.messages.size());
  for (size_t i = 0; i < attacked.messages.size(); ++i) {
    FUZZ_CHECK(attacked.messages[i] == whole.messages[i]);
  }
  return 0;
}
