// A ProxyCommand for ssh that counts the bytes of its connection: relays stdin/stdout to
// 127.0.0.1:PORT and keeps the totals so far in DIR/<its pid> as "<bytes to server> <bytes from
// server>", rewritten after every transfer, so a benchmark can sum DIR while connections are
// still open (ssh masters outlive the commands that use them).
//
//   ssh -o 'ProxyCommand=count_relay DIR %p' ...
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int out_fd;
static unsigned long long to_server_bytes, from_server_bytes;

static void record(void) {
  char line[64];
  const int n = snprintf(line, sizeof line, "%llu %llu\n", to_server_bytes, from_server_bytes);
  if (pwrite(out_fd, line, (size_t)n, 0) != n) exit(3);
}

// Moves what `from` has to `to`; 0 at end of input.
static ssize_t pump(int from, int to, unsigned long long* count) {
  char buf[1 << 16];
  const ssize_t n = read(from, buf, sizeof buf);
  for (ssize_t done = 0; done < n;) {
    const ssize_t w = write(to, buf + done, (size_t)(n - done));
    if (w <= 0) return -1;
    done += w;
  }
  if (n > 0) {
    *count += (unsigned long long)n;
    record();
  }
  return n;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: count_relay DIR PORT\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%d", argv[1], (int)getpid());
  out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (out_fd < 0 || sock < 0 || connect(sock, (struct sockaddr*)&addr, sizeof addr) != 0) {
    perror("count_relay");
    return 1;
  }
  record();
  struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds, 2, -1) < 0) return 1;
    if (fds[0].revents) {
      const ssize_t n = pump(0, sock, &to_server_bytes);
      if (n < 0) return 1;
      if (n == 0) shutdown(sock, SHUT_WR), fds[0].fd = -1;
    }
    if (fds[1].revents) {
      const ssize_t n = pump(sock, 1, &from_server_bytes);
      if (n < 0) return 1;
      if (n == 0) close(1), fds[1].fd = -1;
    }
  }
  return 0;
}
