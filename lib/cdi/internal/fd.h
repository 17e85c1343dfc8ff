// A file descriptor closed on scope exit (private to lib/cdi).
#ifndef DRAFORGE_CDI_INTERNAL_FD_H_
#define DRAFORGE_CDI_INTERNAL_FD_H_

#include <unistd.h>

namespace draforge::cdi::internal {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports close's error (a delayed write error on some file systems).
  int Close() {
    const int fd = fd_;
    fd_ = -1;
    return close(fd);
  }

 private:
  int fd_;
};

}  // namespace draforge::cdi::internal

#endif  // DRAFORGE_CDI_INTERNAL_FD_H_
