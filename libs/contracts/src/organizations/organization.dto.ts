import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export const ORGANIZATION_STATUSES = ['active', 'suspended'] as const;

export class CreateOrganizationDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;

  @IsOptional() @IsIn(ORGANIZATION_STATUSES, { message: `status must be one of: ${ORGANIZATION_STATUSES.join(', ')}` })
  status?: (typeof ORGANIZATION_STATUSES)[number];

  @IsOptional() @IsBoolean()
  sandbox?: boolean;
}

export class UpdateOrganizationDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  name?: string;

  @IsOptional() @IsIn(ORGANIZATION_STATUSES, { message: `status must be one of: ${ORGANIZATION_STATUSES.join(', ')}` })
  status?: (typeof ORGANIZATION_STATUSES)[number];
}

export interface OrganizationView {
  id: string;
  name: string;
  status: string;
  sandbox: boolean;
  createdAt: string;
}
