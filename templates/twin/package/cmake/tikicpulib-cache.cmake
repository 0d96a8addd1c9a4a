# Run after the twin runtime is built (cmake -DSOURCE=<archive> -DDESTINATION=<cache path> -P this): keeps a
# copy of the archive in the twin package for later build folders. Copied under a temporary name and then
# renamed, so a build reading the cache never sees half a file. Never fails the build: a package that
# cannot be written to just goes without the cache.
get_filename_component(_dir "${DESTINATION}" DIRECTORY)
string(MD5 _suffix "${SOURCE}") # one build folder, one name: concurrent builds never share it
set(_temporary "${_dir}/.runtime.${_suffix}.tmp")
execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${_dir}" RESULT_VARIABLE _failed OUTPUT_QUIET ERROR_QUIET)
if(NOT _failed)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${SOURCE}" "${_temporary}" RESULT_VARIABLE _failed
                    OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT _failed)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E rename "${_temporary}" "${DESTINATION}" RESULT_VARIABLE _failed
                    OUTPUT_QUIET ERROR_QUIET)
endif()
if(_failed)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E remove -f "${_temporary}" OUTPUT_QUIET ERROR_QUIET)
endif()
