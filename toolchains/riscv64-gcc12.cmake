# CMake toolchain file for the riscv64-gcc12 khost profile (toolchains/riscv64-gcc12.profile).
set(KTUNE_PROFILE riscv64-gcc12)
include(${CMAKE_CURRENT_LIST_DIR}/profile.cmake)
