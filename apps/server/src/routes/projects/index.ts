import createDeploymentEnvironment from "./create-deployment-environment.ts";
import createProject from "./create-project.ts";
import deleteDeploymentEnvironment from "./delete-deployment-environment.ts";
import getProject from "./get-project.ts";
import listDeploymentEnvironments from "./list-deployment-environments.ts";
import listProjects from "./list-projects.ts";
import updateProject from "./update-project.ts";

/** The Projects operations, in spec order. */
export const projectRoutes = [
  listProjects,
  createProject,
  getProject,
  updateProject,
  listDeploymentEnvironments,
  createDeploymentEnvironment,
  deleteDeploymentEnvironment,
];
