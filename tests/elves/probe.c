/* A kernel that misbehaves in one of several ways, chosen by argv[1]:
 *   badutf8     prints bytes that are not UTF-8, then fails (exit 1)
 *   late-notok  prints 2 MiB, then "out NOT OK", then 100 KiB more (exit 0)
 *   late-time   prints 2 MiB, then its time line, then 100 KiB more (exit 0)
 *   escape      forks a child that leaves the process group (setsid) and writes a line every
 *               20 ms for 8 s; the parent exits 0 at once
 *   inherited   reports what it inherited: open fds above 2, whether SIGPIPE is ignored, and
 *               how many signals are blocked
 *   identity    reports its uid, gid and supplementary groups, its limits (RLIMIT_AS, NPROC,
 *               FSIZE), whether it may write to its working directory and to the bundle's
 *               tree (argv[2], a path into it), and that file's owner; exits 3 (a failed run's
 *               output travels to the host)
 *   hog         allocates and touches 16 MiB blocks until an allocation fails (exit 1)
 *   forkbomb    forks (and its children fork) until fork fails; the first process then
 *               reports the count and exits 1, the others sleep
 *   bigfile     writes a 64 MiB file in its working directory */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
  if (strcmp(mode, "identity") == 0) {
    struct rlimit as, nproc, fsize;
    getrlimit(RLIMIT_AS, &as);
    getrlimit(RLIMIT_NPROC, &nproc);
    getrlimit(RLIMIT_FSIZE, &fsize);
    printf("uid %d gid %d groups %d\n", (int)getuid(), (int)getgid(), getgroups(0, NULL));
    printf("as %llu nproc %llu fsize %llu\n", (unsigned long long)as.rlim_cur,
           (unsigned long long)nproc.rlim_cur, (unsigned long long)fsize.rlim_cur);
    const int here = open("scratch.txt", O_WRONLY | O_CREAT, 0644);
    printf("write cwd: %s\n", here >= 0 ? "yes" : strerror(errno));
    if (argc > 2) {
      char path[4096];
      snprintf(path, sizeof path, "%s.new", argv[2]);
      const int tree = open(path, O_WRONLY | O_CREAT, 0644);
      printf("write tree: %s\n", tree >= 0 ? "yes" : strerror(errno));
      struct stat st;
      printf("tree owner: %d\n", stat(argv[2], &st) == 0 ? (int)st.st_uid : -1);
    }
    return 3;
  }
  if (strcmp(mode, "hog") == 0) {
    for (long mib = 0;; mib += 16) {
      char* block = malloc(16 << 20);
      if (!block) {
        printf("hog: allocation failed after %ld MiB\n", mib);
        return 1;
      }
      memset(block, 1, 16 << 20);
    }
  }
  if (strcmp(mode, "forkbomb") == 0) {
    const pid_t first = getpid();
    long forks = 0;
    for (;;) {
      const pid_t child = fork();
      if (child < 0) break;
      if (child > 0) ++forks;
    }
    if (getpid() != first) pause();
    printf("forkbomb: fork failed after %ld forks: %s\n", forks, strerror(errno));
    return 1;
  }
  if (strcmp(mode, "bigfile") == 0) {
    FILE* f = fopen("big.bin", "w");
    if (!f) return 1;
    static char block[1 << 20];
    for (int i = 0; i < 64; ++i) fwrite(block, 1, sizeof block, f);
    fclose(f);
    puts("bigfile: written");
    return 0;
  }
  fprintf(stderr, "unknown mode '%s'\n", mode);
  return 2;
}
