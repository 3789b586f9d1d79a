// The virtual board's init: PID 1 of its initramfs (scripts/vboard.sh). Mounts /proc, /sys, /dev
// and a tmpfs for the agent's store, brings up lo and eth0 at 10.0.2.15/24 (the guest address of
// qemu's user network, where the host's forwarded port arrives), starts /agentd listening there
// with the board's token and any arguments given after "--" on the kernel command line, reaps
// orphans, and powers the board off when agentd exits. Its lines on the console start with
// "vboard-init:".
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GUEST_ADDR "10.0.2.15"
#define AGENT_PORT "7178"

static void Say(const char* what, const char* detail) {
  fprintf(stderr, "vboard-init: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

static void Mount(const char* source, const char* target, const char* type) {
  mkdir(target, 0755);
  if (mount(source, target, type, 0, NULL) != 0) Say(target, strerror(errno));
}

static int SetAddr(int fd, const char* name, unsigned long request, const char* addr) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  struct sockaddr_in* sin = (struct sockaddr_in*)&ifr.ifr_addr;
  sin->sin_family = AF_INET;
  if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) return -1;
  return ioctl(fd, request, &ifr);
}

static int Up(int fd, const char* name) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) return -1;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  return ioctl(fd, SIOCSIFFLAGS, &ifr);
}

static void Network(void) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    Say("socket", strerror(errno));
    return;
  }
  if (Up(fd, "lo") != 0) Say("lo", strerror(errno));
  if (SetAddr(fd, "eth0", SIOCSIFADDR, GUEST_ADDR) != 0 ||
      SetAddr(fd, "eth0", SIOCSIFNETMASK, "255.255.255.0") != 0 || Up(fd, "eth0") != 0) {
    Say("eth0", strerror(errno));
  }
  close(fd);
}

int main(int argc, char** argv) {
  Mount("proc", "/proc", "proc");
  Mount("sysfs", "/sys", "sysfs");
  Mount("devtmpfs", "/dev", "devtmpfs");
  Mount("tmpfs", "/tmp", "tmpfs");
  Network();

  // The token vboard.sh put on the kernel command line (ktune_token=HEX), which the kernel hands
  // to init in its environment: into a file only root reads, for agentd --token-file.
  const char* token = getenv("ktune_token");
  if (!token || !*token) {
    Say("no ktune_token= on the kernel command line", NULL);
  } else {
    const int fd = open("/tmp/token", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, token, strlen(token)) < 0 || close(fd) != 0) {
      Say("/tmp/token", strerror(errno));
    }
  }

  // agentd --listen 10.0.2.15:7178 --store /tmp/store --token-file /tmp/token --run-as 65534
  // [args...]
  char* agent_argv[64];
  int n = 0;
  agent_argv[n++] = "/agentd";
  agent_argv[n++] = "--listen";
  agent_argv[n++] = GUEST_ADDR ":" AGENT_PORT;
  agent_argv[n++] = "--store";
  agent_argv[n++] = "/tmp/store";
  agent_argv[n++] = "--token-file";
  agent_argv[n++] = "/tmp/token";
  agent_argv[n++] = "--run-as";  // the board has no passwd: nobody's uid
  agent_argv[n++] = "65534";
  for (int i = 1; i < argc && n < 63; ++i) agent_argv[n++] = argv[i];
  agent_argv[n] = NULL;

  const pid_t agent = fork();
  if (agent == 0) {
    char* env[] = {"PATH=/", "HOME=/tmp", NULL};
    execve(agent_argv[0], agent_argv, env);
    Say("exec /agentd", strerror(errno));
    _exit(127);
  }
  if (agent < 0) Say("fork", strerror(errno));
  // PID 1 inherits every orphan: reap them all until agentd itself ends.
  for (;;) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0 || pid == agent) {
      char detail[64];
      snprintf(detail, sizeof detail, "status %d", status);
      Say("agentd ended, powering off", detail);
      break;
    }
  }
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
