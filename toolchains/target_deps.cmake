# The imported targets agentd links, for a static build against KTUNE_TARGET_DEPS, the prefix
# scripts/target_deps.sh fills from Debian source packages (protobuf-lite, zstd, libsodium,
# and links to the header-only Boost.Asio and cxxopts). Same names as the host build's
# find_package/pkg-config targets, so the rest of the build does not change. protoc is the
# host's (Debian's protobuf-compiler, from the same protobuf source version).
set(_kt_inc ${KTUNE_TARGET_DEPS}/include)
set(_kt_lib ${KTUNE_TARGET_DEPS}/lib)
foreach(_kt_file ${_kt_lib}/libprotobuf-lite.a ${_kt_lib}/libzstd.a ${_kt_lib}/libsodium.a
        ${_kt_inc}/boost/asio.hpp ${_kt_inc}/cxxopts.hpp)
  if(NOT EXISTS ${_kt_file})
    message(FATAL_ERROR "${_kt_file} is missing: run scripts/target_deps.sh for this target")
  endif()
endforeach()

add_library(PkgConfig::ZSTD STATIC IMPORTED)
set_target_properties(PkgConfig::ZSTD PROPERTIES IMPORTED_LOCATION ${_kt_lib}/libzstd.a
                      INTERFACE_INCLUDE_DIRECTORIES ${_kt_inc})
add_library(PkgConfig::SODIUM STATIC IMPORTED)
set_target_properties(PkgConfig::SODIUM PROPERTIES IMPORTED_LOCATION ${_kt_lib}/libsodium.a
                      INTERFACE_INCLUDE_DIRECTORIES ${_kt_inc})
add_library(protobuf::libprotobuf-lite STATIC IMPORTED)
set_target_properties(protobuf::libprotobuf-lite PROPERTIES
                      IMPORTED_LOCATION ${_kt_lib}/libprotobuf-lite.a
                      INTERFACE_INCLUDE_DIRECTORIES ${_kt_inc}
                      INTERFACE_LINK_LIBRARIES Threads::Threads)
add_library(cxxopts::cxxopts INTERFACE IMPORTED)
set_target_properties(cxxopts::cxxopts PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${_kt_inc})
find_program(_kt_protoc protoc REQUIRED)
add_executable(protobuf::protoc IMPORTED)
set_target_properties(protobuf::protoc PROPERTIES IMPORTED_LOCATION ${_kt_protoc})

# One static, stripped binary with unused sections dropped, optimized across files at link time
# as one partition (the whole program in view: 1.8 KB less code on riscv64 than gcc's default
# partitions); on RISC-V, prologues and epilogues call libgcc's shared register save/restore
# routines (-msave-restore: smaller, a few cycles slower per call, nothing the measured kernels
# run) and gcc's size tuning picks the instructions (-mtune=size: 2 KB less).
add_compile_options(-ffunction-sections -fdata-sections)
add_link_options(-static -Wl,--gc-sections -s -flto-partition=one)
set(CMAKE_INTERPROCEDURAL_OPTIMIZATION ON)
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "riscv64")
  add_compile_options(-msave-restore -mtune=size)
  add_link_options(-mtune=size)
endif()
