# CMake toolchain file for the aarch64-gcc12 khost profile (toolchains/aarch64-gcc12.profile).
set(KTUNE_PROFILE aarch64-gcc12)
include(${CMAKE_CURRENT_LIST_DIR}/profile.cmake)
