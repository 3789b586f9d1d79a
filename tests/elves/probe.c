/* A kernel that misbehaves in one of several ways, chosen by argv[1]:
 *   badutf8     prints bytes that are not UTF-8, then fails (exit 1)
 *   late-notok  prints 2 MiB, then "out NOT OK", then 100 KiB more (exit 0)
 *   late-time   prints 2 MiB, then its time line, then 100 KiB more (exit 0)
 *   escape      forks a child that leaves the process group (setsid) and writes a line every
 *               20 ms for 8 s; the parent exits 0 at once
 *   inherited   reports what it inherited: open fds above 2, whether SIGPIPE is ignored, and
 *               how many signals are blocked */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void filler(long bytes) {
  char line[1024];
  memset(line, '.', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  for (long i = 0; i < bytes / (long)sizeof line; ++i) fwrite(line, 1, sizeof line, stdout);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "badutf8") == 0) {
    printf("caf\xe9 \xff\xfe not utf-8\n");
    return 1;
  }
  if (strcmp(mode, "late-notok") == 0 || strcmp(mode, "late-time") == 0) {
    filler(2 << 20);
    puts(strcmp(mode, "late-notok") == 0 ? "out NOT OK" : "Running C Kernel Time: 0.5 s");
    filler(100 << 10);
    return 0;
  }
  if (strcmp(mode, "escape") == 0) {
    if (fork() == 0) {
      setsid();
      for (int i = 0; i < 400; ++i) {
        printf("still here %d\n", i);
        fflush(stdout);
        usleep(20000);
      }
      return 0;
    }
    return 0;
  }
  if (strcmp(mode, "inherited") == 0) {
    int fds = 0;
    DIR* d = opendir("/proc/self/fd");
    struct dirent* e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d)) ++fds;
    }
    if (d) closedir(d);
    struct sigaction sa;
    sigaction(SIGPIPE, NULL, &sa);
    sigset_t mask;
    sigprocmask(SIG_SETMASK, NULL, &mask);
    int blocked = 0;
    for (int sig = 1; sig < 32; ++sig) blocked += sigismember(&mask, sig);
    printf("fds above 2: %d\nSIGPIPE ignored: %d\nblocked signals: %d\n", fds,
           sa.sa_handler == SIG_IGN, blocked);
    return 0;
  }
  fprintf(stderr, "unknown mode '%s'\n", mode);
  return 2;
}
