// Left behind by a runner this project no longer uses; nothing runs jest here.
const unused = 1;
export default {};
