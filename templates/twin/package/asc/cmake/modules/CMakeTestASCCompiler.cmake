# twin-asc is a script of the package around the C++ compiler CMake already checks for CXX.
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
